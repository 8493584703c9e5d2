import { FiberRef } from "effect"
import { randomBytes } from "node:crypto"

/** A tenant's request budget as its last count left it (OpenAI's `x-ratelimit-*` headers). */
export interface RateLimitState {
  limit: number
  remaining: number
  resetSeconds: number
}

/**
 * The request's rate-limit holder: the request guard installs an empty one, the tenant rate limiter fills it, the
 * guard writes it as headers. A holder (not a value set later) so that it reaches the guard from the auth middleware.
 */
export const currentRateLimit: FiberRef.FiberRef<{ state: RateLimitState | undefined } | undefined> = FiberRef
  .unsafeMake<{ state: RateLimitState | undefined } | undefined>(undefined)

/** The headers a browser page may read when CORS is on. */
export const exposedHeaders = [
  "x-request-id",
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "retry-after",
  "x-deepnote-process"
] as const

const requestIdPattern = /^[\w.:-]{1,128}$/u

/** The client's `x-request-id` when it is a sane token, else a new one. */
export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && requestIdPattern.test(header) ? header : `req_${randomBytes(12).toString("hex")}`

/** The headers of every response: the request id and, once the tenant was counted, its rate-limit budget. */
export const responseHeaders = (
  requestId: string,
  rate: { state: RateLimitState | undefined }
): Record<string, string> => ({
  "x-request-id": requestId,
  ...(rate.state === undefined ? {} : {
    "x-ratelimit-limit-requests": String(rate.state.limit),
    "x-ratelimit-remaining-requests": String(rate.state.remaining),
    "x-ratelimit-reset-requests": `${rate.state.resetSeconds}s`
  })
})
