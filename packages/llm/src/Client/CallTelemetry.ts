import { LlmMetrics, type Role, TraceContent, withTags } from "@deepnote/core"
import { Cause, Clock, Effect, Exit, Option } from "effect"
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

// Metrics are updated with `unsafeUpdate` inside one `Effect.sync` per call or attempt: these run on every LLM call,
// where a separate Effect per metric update cost measurable CPU (benchmarks/llm). No fiber-level metric labels are used
// in this project, hence the empty extra-label list.
const noLabels: ReadonlyArray<never> = []

/** Metrics of one HTTP attempt to `endpoint`: in flight while it runs, then its latency and outcome. */
export const observeAttempt = (endpoint: string) => <A, R>(self: Effect.Effect<A, LlmAttemptError, R>): Effect.Effect<A, LlmAttemptError, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Clock.currentTimeMillis, (start) => {
      const tags = { endpoint }
      const inFlight = withTags(LlmMetrics.inFlight, tags)
      inFlight.unsafeUpdate(1, noLabels)
      return Effect.onExit(restore(self), (exit) =>
        Effect.flatMap(Clock.currentTimeMillis, (end) =>
          Effect.sync(() => {
            inFlight.unsafeUpdate(-1, noLabels)
            withTags(LlmMetrics.attemptDuration, tags).unsafeUpdate(end - start, noLabels)
            const failed = Exit.isFailure(exit) ? Option.match(Cause.failureOption(exit.cause), { onNone: () => "interrupted", onSome: failureClass }) : undefined
            withTags(LlmMetrics.attempts, { endpoint, outcome: failed ?? "ok" }).unsafeUpdate(1, noLabels)
            if (failed !== undefined) withTags(LlmMetrics.attemptFailures, { endpoint, class: failed }).unsafeUpdate(1, noLabels)
          })))
    }))

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
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.onExit(self, (exit) =>
      Effect.gen(function*() {
        const tags = { role: info.role, model: info.model }
        const end = yield* Clock.currentTimeMillis
        const content = yield* TraceContent
        withTags(LlmMetrics.callDuration, tags).unsafeUpdate(end - start, noLabels)
        if (Exit.isSuccess(exit)) {
          const r = exit.value
          withTags(LlmMetrics.calls, { ...tags, outcome: r.cached ? "cached" : "ok" }).unsafeUpdate(1, noLabels)
          if (r.cached) withTags(LlmMetrics.cacheHits, tags).unsafeUpdate(1, noLabels)
          else {
            withTags(LlmMetrics.tokens, { ...tags, type: "input" }).unsafeUpdate(r.usage.promptTokens, noLabels)
            withTags(LlmMetrics.tokens, { ...tags, type: "output" }).unsafeUpdate(r.usage.completionTokens, noLabels)
          }
          yield* Effect.annotateCurrentSpan({
            "gen_ai.system": "openai",
            "gen_ai.response.model": r.model,
            ...(content ? { "gen_ai.input.messages": JSON.stringify(info.input), "gen_ai.output.messages": JSON.stringify(output(r)) } : {})
          })
        } else {
          withTags(LlmMetrics.calls, { ...tags, outcome: "failed" }).unsafeUpdate(1, noLabels)
          const error = Cause.failureOption(exit.cause)
          if (Option.isSome(error)) {
            withTags(LlmMetrics.callFailures, { role: info.role, reason: error.value.reason, class: failureClass(error.value.last) }).unsafeUpdate(1, noLabels)
          }
          yield* Effect.annotateCurrentSpan({ "gen_ai.system": "openai", ...(content ? { "gen_ai.input.messages": JSON.stringify(info.input) } : {}) })
        }
      })))
