import { counted } from "@deepnote-rag/core"
import { type LlmAttemptError, LlmCallError } from "../Domain/LlmError.js"
import type { ResolvedCallPolicy } from "../LlmCallPolicy.js"
import type { LlmSettingsData } from "../LlmSettings.js"
import { backoffMs } from "./Backoff.js"
import type { EndpointState } from "./Endpoint.js"
import type { Outcome } from "./EndpointHealth.js"

/** A call's retry state across its attempts. */
export interface CallState {
  /** Attempts sent (or tried) so far. */
  attempt: number
  /** Failed attempts that count against `maxAttempts`. */
  counted: number
  /** Overload answers and outage failures so far (the exponent of their backoff). */
  uncounted: number
  /** Time spent unavailable: waiting for an endpoint in an outage, and on overloaded or outage attempts. */
  waitedMs: number
  avoid: EndpointState | undefined
  /** A delta of a streamed reply has reached the caller: a failure now is reported, not retried. */
  started: boolean
}

export type Decision =
  | { readonly _tag: "Fail"; readonly reason: "permanent" | "attempts-exhausted" | "outage" | "stream-interrupted" }
  | {
    readonly _tag: "Retry"
    readonly delayMs: number
    /** Counts against `maxAttempts` (a failure while some endpoint was up). */
    readonly counted: boolean
    /** Takes a retry token (everything but a structured-output fallback and an outage failure). */
    readonly throttled: boolean
    readonly avoid: EndpointState | undefined
    readonly why: string
    /** The request was changed for the endpoint (a refused parameter dropped): retried at once, nothing counted. */
    readonly adjusted?: boolean
  }

/** How an attempt's failure reflects on its endpoint's health. */
export const outcomeOf = (error: LlmAttemptError): Outcome => {
  switch (error._tag) {
    case "LlmHttpError":
      return error.overload
        ? { _tag: "Overload", message: error.message, retryAfterMs: error.retryAfterMs }
        : error.status >= 500
        ? { _tag: "Failure", message: error.message }
        : { _tag: "Neutral" }
    case "LlmTimeoutError":
    case "LlmTransportError":
    case "LlmMalformedReply":
      return { _tag: "Failure", message: error.message }
    case "LlmUnavailable":
    case "LlmModelNotServed":
      return { _tag: "Neutral" }
  }
}

/** OpenTelemetry's `error.type`: the HTTP status code, else the error's class. */
export const errorType = (error: LlmAttemptError): string =>
  error._tag === "LlmHttpError" ? String(error.status) : error._tag

export interface DecisionInput {
  readonly error: LlmAttemptError
  readonly endpoint: EndpointState | undefined
  readonly state: CallState
  readonly settings: LlmSettingsData
  readonly policy: ResolvedCallPolicy
  /** No endpoint serving the call's model is up (after this attempt's outcome was recorded). */
  readonly outage: boolean
  /** Another endpoint serving the model is up and has a free slot. */
  readonly elsewhere: boolean
  /** Time this attempt spent on the wire (0 when it never got an endpoint). */
  readonly sentMs: number
  readonly random: number
}

/**
 * What to do after a failed attempt:
 * - a streamed reply that broke after its first delta reached the caller is reported, never retried;
 * - permanent errors (4xx other than 408/409/429, no endpoint serving the model) fail at once;
 * - overload answers (429/503/529) are retried after a backoff (the server's `Retry-After` when it is the only place
 *   to go) and failures while every endpoint is down or overloaded are retried as soon as one is back: neither counts
 *   against `maxAttempts`; their time counts against the outage tolerance instead;
 * - other transient failures (transport, timeout, unreadable reply, other 5xx) count, with exponential backoff.
 */
export const decide = (input: DecisionInput): Decision => {
  const { error, settings, state } = input
  if (state.started) return { _tag: "Fail", reason: "stream-interrupted" }
  if (error._tag === "LlmUnavailable") return { _tag: "Fail", reason: "outage" }
  if (!error.transient) return { _tag: "Fail", reason: "permanent" }
  const overload = error._tag === "LlmHttpError" && error.overload
  if (overload || input.outage) {
    const n = state.uncounted + 1
    const delayMs = overload
      ? backoffMs(n, {
        baseMs: settings.backoffBaseMs,
        maxMs: settings.backoffMaxMs,
        retryAfterMs: input.elsewhere || error._tag !== "LlmHttpError" ? undefined : error.retryAfterMs
      }, input.random)
      : 0
    if (state.waitedMs + input.sentMs + delayMs > input.policy.outageToleranceMs) {
      return { _tag: "Fail", reason: "outage" }
    }
    return {
      _tag: "Retry",
      delayMs,
      counted: false,
      throttled: overload,
      avoid: input.endpoint,
      why: overload ? `status ${error._tag === "LlmHttpError" ? error.status : ""}` : `outage (${error._tag})`
    }
  }
  if (state.counted + 1 >= settings.maxAttempts) return { _tag: "Fail", reason: "attempts-exhausted" }
  return {
    _tag: "Retry",
    delayMs: backoffMs(
      state.counted + 1,
      { baseMs: settings.backoffBaseMs, maxMs: settings.backoffMaxMs },
      input.random
    ),
    counted: true,
    throttled: true,
    avoid: input.endpoint,
    why: error._tag === "LlmHttpError" ? `status ${error.status}` : error._tag
  }
}

/**
 * How a call ends for good: its error, saying why, after how many attempts, or how long it waited and for whom.
 * `label` names the call (`LLM init`, `embeddings`) and `servers` what it waited for (`LLM servers`).
 */
export const callFailure = (
  call: { readonly label: string; readonly servers: string },
  policy: ResolvedCallPolicy,
  state: CallState,
  reason: LlmCallError["reason"],
  last: LlmAttemptError,
  endpoints: string
): LlmCallError =>
  new LlmCallError({
    message: reason === "outage"
      ? `${call.label} call gave up after waiting ${(state.waitedMs / 1000).toFixed(1)} s for the ${call.servers} ` +
        `(outage tolerance ${policy.outageToleranceMs / 1000} s, ${policy.workClass} work): ${endpoints}`
      : reason === "stream-interrupted"
      ? `${call.label} reply broke off after its first tokens (not retried): ${last.message}`
      : `${call.label} call ${reason === "permanent" ? "failed" : "gave up"} after ${
        counted(state.attempt, "attempt")
      }: ` +
        last.message,
    attempts: state.attempt,
    reason,
    last
  })
