import { LlmMetrics, type Role, TraceContent, withTags } from "@deepnote/core"
import { Cause, Clock, Effect, Exit, Metric, Option } from "effect"
import type { LlmAttemptError, LlmCallError } from "../Domain/LlmError.js"

/** A failed attempt's class, the `class` tag of the failure metrics. */
export const failureClass = (error: LlmAttemptError): string => {
  switch (error._tag) {
    case "LlmHttpError":
      return error.status === 429 ? "http_429" : error.status >= 500 ? "http_5xx" : "http_4xx"
    case "LlmTimeoutError":
      return "timeout"
    case "LlmTransportError":
      return "transport"
    case "LlmMalformedReply":
      return "malformed"
    case "LlmUnavailable":
      return "unavailable"
  }
}

/** Metrics of one HTTP attempt to `endpoint`: in flight while it runs, then its latency and outcome. */
export const observeAttempt = (endpoint: string) => <A, R>(self: Effect.Effect<A, LlmAttemptError, R>): Effect.Effect<A, LlmAttemptError, R> =>
  Effect.gen(function*() {
    const tags = { endpoint }
    const inFlight = withTags(LlmMetrics.inFlight, tags)
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.acquireUseRelease(Metric.increment(inFlight), () => Effect.exit(self), () => Metric.incrementBy(inFlight, -1))
    yield* Metric.update(withTags(LlmMetrics.attemptDuration, tags), (yield* Clock.currentTimeMillis) - start)
    const failed = Exit.isFailure(exit) ? Option.match(Cause.failureOption(exit.cause), { onNone: () => "interrupted", onSome: failureClass }) : undefined
    yield* Metric.increment(withTags(LlmMetrics.attempts, { endpoint, outcome: failed ?? "ok" }))
    if (failed !== undefined) yield* Metric.increment(withTags(LlmMetrics.attemptFailures, { endpoint, class: failed }))
    return yield* exit
  })

export interface CallInfo {
  readonly role: Role
  readonly model: string
  /** Prompt messages (chat) or prompts (completions): recorded on the span only when `TraceContent` is on. */
  readonly input: unknown
}

interface CallOutcome {
  readonly usage: { readonly promptTokens: number; readonly completionTokens: number }
  readonly cached: boolean
  readonly model: string
}

/**
 * Metrics of one call (retries included): outcome, latency, tokens by role and model, cache hits; the response model
 * and, when `TraceContent` is on, the prompt and completion (`gen_ai.input.messages`, `gen_ai.output.messages`) on
 * the current span (`LlmClient.chat` / `LlmClient.complete`).
 */
export const observeCall = <A extends CallOutcome>(info: CallInfo, output: (a: A) => unknown) =>
<R>(self: Effect.Effect<A, LlmCallError, R>): Effect.Effect<A, LlmCallError, R> =>
  Effect.gen(function*() {
    const tags = { role: info.role, model: info.model }
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(self)
    yield* Metric.update(withTags(LlmMetrics.callDuration, tags), (yield* Clock.currentTimeMillis) - start)
    const content = yield* TraceContent
    yield* Effect.annotateCurrentSpan({ "gen_ai.system": "openai", ...(content ? { "gen_ai.input.messages": JSON.stringify(info.input) } : {}) })
    if (Exit.isSuccess(exit)) {
      const r = exit.value
      yield* Metric.increment(withTags(LlmMetrics.calls, { ...tags, outcome: r.cached ? "cached" : "ok" }))
      if (r.cached) yield* Metric.increment(withTags(LlmMetrics.cacheHits, tags))
      else {
        yield* Metric.incrementBy(withTags(LlmMetrics.tokens, { ...tags, type: "input" }), r.usage.promptTokens)
        yield* Metric.incrementBy(withTags(LlmMetrics.tokens, { ...tags, type: "output" }), r.usage.completionTokens)
      }
      yield* Effect.annotateCurrentSpan({ "gen_ai.response.model": r.model, ...(content ? { "gen_ai.output.messages": JSON.stringify(output(r)) } : {}) })
    } else {
      yield* Metric.increment(withTags(LlmMetrics.calls, { ...tags, outcome: "failed" }))
      const error = Cause.failureOption(exit.cause)
      if (Option.isSome(error)) {
        yield* Metric.increment(withTags(LlmMetrics.callFailures, { role: info.role, reason: error.value.reason, class: failureClass(error.value.last) }))
      }
    }
    return yield* exit
  })
