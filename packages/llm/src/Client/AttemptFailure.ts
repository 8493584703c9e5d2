import { Cause, Clock, Effect, Option, Random } from "effect"
import type { LlmAttemptError } from "../Domain/LlmError.js"
import type { LlmSettingsData } from "../LlmSettings.js"
import { adjust } from "./Adjust.js"
import type { Call, ExecutorTags } from "./Call.js"
import type { EndpointState } from "./Endpoint.js"
import type { EndpointPoolService } from "./EndpointPool.js"
import { type CallState, decide, type Decision, errorType } from "./RetryDecision.js"
import type { RetryThrottle } from "./RetryThrottle.js"

/** What the executor holds for every call: its settings, the endpoint pool, the retry throttle. */
export interface FailureDeps<T extends ExecutorTags> {
  readonly settings: LlmSettingsData
  readonly pool: EndpointPoolService
  readonly throttle: RetryThrottle
  /** Counts a request retried without its structured-output fields (the usage ledger's `structuredFallback`). */
  readonly structuredFallback: (tags: T) => Effect.Effect<void>
}

/** The attempt that failed: its call, the call's state, and where and how it was sent (if it was). */
export interface FailedAttempt<T extends ExecutorTags> {
  readonly call: Call<T>
  readonly state: CallState
  /** Where the decision is left for the executor's retry loop. */
  readonly decided: { decision: Decision | undefined }
  readonly endpoint: EndpointState | undefined
  readonly structured: boolean
  readonly sentAt: number | undefined
}

/**
 * Inside a failed attempt's span: annotates the span with the error, then decides what follows — a request adjusted
 * and sent again (`adjust`: e.g. without its structured-output fields), a retry (paced by the retry throttle, its
 * reason and backoff on the span) or the call's failure (`decide`) — and leaves the decision in `decided`. Fails with
 * the attempt's error again (a defect or interruption stays one).
 */
export const decideAfterFailure = <T extends ExecutorTags>(
  cause: Cause.Cause<LlmAttemptError>,
  { call, decided, endpoint, sentAt, state, structured }: FailedAttempt<T>,
  deps: FailureDeps<T>
): Effect.Effect<never, LlmAttemptError> =>
  Effect.gen(function*() {
    yield* Effect.annotateCurrentSpan({
      "server.address": endpoint?.url ?? "none",
      "deepnote.llm.structured": structured
    })
    const found = Cause.failureOption(cause)
    if (Option.isNone(found)) return yield* Effect.orDie(Effect.failCause(cause))
    const error = found.value
    if (error._tag === "LlmUnavailable") state.waitedMs += error.waitedMs ?? 0
    const now = yield* Clock.currentTimeMillis
    yield* Effect.annotateCurrentSpan({
      "error.type": errorType(error),
      "deepnote.llm.error": error._tag,
      "deepnote.llm.error.message": error.message
    })
    const adjusted = yield* adjust(error, endpoint, structured, () => deps.structuredFallback(call.tags))
    if (adjusted !== undefined) {
      decided.decision = adjusted
      return yield* Effect.fail(error)
    }
    const d = decide({
      error,
      endpoint,
      state,
      settings: deps.settings,
      policy: call.policy,
      outage: deps.pool.inOutage(call.model),
      elsewhere: deps.pool.endpoints.some((e) =>
        e !== endpoint && e.serves(call.model) && e.condition === "up" && e.available(now)
      ),
      sentMs: sentAt === undefined ? 0 : now - sentAt,
      random: yield* Random.next
    })
    if (d._tag === "Retry") {
      const wait = d.throttled ? deps.throttle.reserve(now) : 0
      const decision = { ...d, delayMs: Math.max(d.delayMs, wait) }
      decided.decision = decision
      if (!d.counted) state.waitedMs += sentAt === undefined ? 0 : now - sentAt
      yield* Effect.annotateCurrentSpan({
        "deepnote.llm.retry.reason": d.why,
        "deepnote.llm.retry.backoff_ms": decision.delayMs,
        "deepnote.llm.retry.counted": d.counted,
        ...(wait > d.delayMs ? { "deepnote.llm.retry.throttled_ms": wait } : {})
      })
    } else {
      decided.decision = d
    }
    return yield* Effect.fail(error)
  })
