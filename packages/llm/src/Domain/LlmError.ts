import { Schema } from "effect"

const transientStatuses: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504, 529])
const overloadStatuses: ReadonlySet<number> = new Set([429, 503, 529])

/**
 * The server answered with a non-2xx status. 408/409/429/500/502/503/504/529 are transient; every other status is
 * permanent. 429, 503 and 529 are overload answers: back-pressure, not failure.
 */
export class LlmHttpError extends Schema.TaggedError<LlmHttpError>()("LlmHttpError", {
  endpoint: Schema.String,
  status: Schema.Number,
  message: Schema.String,
  /** From `Retry-After`, when the server sent one. */
  retryAfterMs: Schema.optional(Schema.Number)
}) {
  get transient(): boolean {
    return transientStatuses.has(this.status)
  }

  /** "Not now": the server (or a gateway before it) is overloaded or rate-limiting; it never ejects an endpoint. */
  get overload(): boolean {
    return overloadStatuses.has(this.status)
  }
}

/** The connection failed, was refused, or was dropped before a full reply arrived. */
export class LlmTransportError extends Schema.TaggedError<LlmTransportError>()("LlmTransportError", {
  endpoint: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  get transient(): boolean {
    return true
  }
}

/** One attempt took longer than the per-attempt timeout. */
export class LlmTimeoutError extends Schema.TaggedError<LlmTimeoutError>()("LlmTimeoutError", {
  endpoint: Schema.String,
  timeoutMs: Schema.Number,
  message: Schema.String
}) {
  get transient(): boolean {
    return true
  }
}

/** A 2xx reply whose body is not a readable completion (broken JSON, missing choices). Retried: usually a glitch. */
export class LlmMalformedReply extends Schema.TaggedError<LlmMalformedReply>()("LlmMalformedReply", {
  endpoint: Schema.String,
  message: Schema.String
}) {
  get transient(): boolean {
    return true
  }
}

/** No endpoint could take the call within its outage tolerance (every endpoint down or overloaded all along). */
export class LlmUnavailable extends Schema.TaggedError<LlmUnavailable>()("LlmUnavailable", {
  message: Schema.String,
  /** How long the call waited for an endpoint while the pool was in outage. */
  waitedMs: Schema.optional(Schema.Number)
}) {
  get transient(): boolean {
    return true
  }
}

/** No endpoint serves the model the call asks for (as their `/v1/models` say). */
export class LlmModelNotServed extends Schema.TaggedError<LlmModelNotServed>()("LlmModelNotServed", {
  model: Schema.String,
  message: Schema.String
}) {
  get transient(): boolean {
    return false
  }
}

/** What one attempt can fail with. */
export type LlmAttemptError =
  | LlmHttpError
  | LlmTransportError
  | LlmTimeoutError
  | LlmMalformedReply
  | LlmUnavailable
  | LlmModelNotServed

export const LlmAttemptError = Schema.Union(
  LlmHttpError,
  LlmTransportError,
  LlmTimeoutError,
  LlmMalformedReply,
  LlmUnavailable,
  LlmModelNotServed
)

/**
 * A call failed for good: a permanent error (`permanent`), the per-call attempt budget ran out while some endpoint
 * was up (`attempts-exhausted`), no endpoint came back within the outage tolerance (`outage`), or a streamed reply
 * broke after its first token (`stream-interrupted`: never retried, the caller has seen part of it). `last` is the final
 * attempt's error; `transient` says whether trying again later could help.
 */
export class LlmCallError extends Schema.TaggedError<LlmCallError>()("LlmCallError", {
  message: Schema.String,
  attempts: Schema.Number,
  reason: Schema.Literal("permanent", "attempts-exhausted", "outage", "stream-interrupted"),
  last: LlmAttemptError
}) {
  get transient(): boolean {
    return this.reason !== "permanent"
  }

  /** The HTTP status of the last attempt, if it got one. */
  get status(): number | undefined {
    return this.last._tag === "LlmHttpError" ? this.last.status : undefined
  }
}
