import { TraceContent, withTags } from "@deepnote-rag/core"
import { Cause, Clock, Effect, Exit, FiberRef, Option } from "effect"
import { currentUsageCollector } from "../CallUsage.js"
import type { CallTags, Usage } from "../Domain/Chat.js"
import type { LlmAttemptError, LlmCallError } from "../Domain/LlmError.js"
import { LlmMetrics } from "../LlmMetrics.js"
import type { UsageLedgerService } from "../UsageLedger.js"
import { errorType } from "./RetryDecision.js"

/** A failed attempt's class, the `class` tag of the failure metrics. */
export const failureClass = (error: LlmAttemptError): string => {
  switch (error._tag) {
    case "LlmHttpError":
      return error.status === 429
        ? "http_429"
        : error.overload
        ? "http_overload"
        : error.status >= 500
        ? "http_5xx"
        : "http_4xx"
    case "LlmTimeoutError":
      return "timeout"
    case "LlmTransportError":
      return "transport"
    case "LlmMalformedReply":
      return "malformed"
    case "LlmUnavailable":
      return "unavailable"
    case "LlmModelNotServed":
      return "model_not_served"
  }
}

// Metrics are updated with `unsafeUpdate` inside one `Effect.sync` per call or attempt: these run on every LLM call,
// where a separate Effect per metric update cost measurable CPU (benchmarks/llm). No fiber-level metric labels are used
// in this project, hence the empty extra-label list.
const noLabels: ReadonlyArray<never> = []

/** Metrics of one HTTP attempt to `endpoint`: in flight while it runs, then its latency and outcome. */
export const observeAttempt =
  (endpoint: string) => <A, R>(self: Effect.Effect<A, LlmAttemptError, R>): Effect.Effect<A, LlmAttemptError, R> =>
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
              const failed = Exit.isFailure(exit)
                ? Option.match(Cause.failureOption(exit.cause), { onNone: () => "interrupted", onSome: failureClass })
                : undefined
              withTags(LlmMetrics.attempts, { endpoint, outcome: failed ?? "ok" }).unsafeUpdate(1, noLabels)
              if (failed !== undefined) {
                withTags(LlmMetrics.attemptFailures, { endpoint, class: failed }).unsafeUpdate(1, noLabels)
              }
            })))
      })
    )

export interface CallInfo {
  readonly tags: CallTags
  readonly model: string
  /** Prompt messages (chat) or prompts (completions): recorded on the span only when `TraceContent` is on. */
  readonly input: unknown
}

interface CallOutcome {
  readonly usage: Usage
  readonly cached: boolean
  readonly model: string
  readonly endpoint: string
  readonly attempts: number
  readonly latencyMs: number
}

/**
 * Everything recorded when one call (retries included) ends, in one place: the usage ledger (tokens, latency,
 * attempts, by role and model), the caller's usage collector if one is installed (`collectCallUsage`), the metrics (outcome, latency, tokens by role and model, cache hits) and the
 * current span (`LlmClient.chat` / `LlmClient.complete`: usage, response model and, when `TraceContent` is on, the
 * prompt and completion as `gen_ai.input.messages` / `gen_ai.output.messages`).
 */
export const observeCall =
  <A extends CallOutcome>(ledger: UsageLedgerService, info: CallInfo, output: (a: A) => unknown) =>
  <R>(self: Effect.Effect<A, LlmCallError, R>): Effect.Effect<A, LlmCallError, R> =>
    Effect.flatMap(Clock.currentTimeMillis, (start) =>
      Effect.onExit(self, (exit) =>
        Effect.gen(function*() {
          const { tags } = info
          const metricTags = { role: tags.role, model: info.model }
          const end = yield* Clock.currentTimeMillis
          const content = yield* TraceContent
          const collector = yield* FiberRef.get(currentUsageCollector)
          withTags(LlmMetrics.callDuration, metricTags).unsafeUpdate(end - start, noLabels)
          if (Exit.isSuccess(exit)) {
            const r = exit.value
            const { cachedPromptTokens = 0, completionTokens, promptTokens } = r.usage
            const entry = {
              role: tags.role,
              model: info.model,
              promptTokens,
              completionTokens,
              cachedPromptTokens,
              latencyMs: r.latencyMs,
              attempts: r.attempts,
              cached: r.cached,
              ok: true
            }
            yield* ledger.record(entry)
            collector?.add({ ...entry, model: r.model, endpoint: r.endpoint })
            withTags(LlmMetrics.calls, { ...metricTags, outcome: r.cached ? "cached" : "ok" }).unsafeUpdate(1, noLabels)
            if (r.cached) withTags(LlmMetrics.cacheHits, metricTags).unsafeUpdate(1, noLabels)
            else {
              withTags(LlmMetrics.tokens, { ...metricTags, type: "input" }).unsafeUpdate(promptTokens, noLabels)
              withTags(LlmMetrics.tokens, { ...metricTags, type: "output" }).unsafeUpdate(completionTokens, noLabels)
            }
            yield* Effect.annotateCurrentSpan({
              "gen_ai.system": "openai",
              "gen_ai.response.model": r.model,
              "gen_ai.usage.input_tokens": promptTokens,
              "gen_ai.usage.output_tokens": completionTokens,
              "deepnote.llm.cached": r.cached,
              "deepnote.llm.attempts": r.attempts,
              ...(content
                ? {
                  "gen_ai.input.messages": JSON.stringify(info.input),
                  "gen_ai.output.messages": JSON.stringify(output(r))
                }
                : {})
            })
          } else {
            const error = Cause.failureOption(exit.cause)
            const attempts = Option.match(error, { onNone: () => 0, onSome: (e) => e.attempts })
            const entry = {
              role: tags.role,
              model: info.model,
              promptTokens: 0,
              completionTokens: 0,
              cachedPromptTokens: 0,
              latencyMs: end - start,
              attempts,
              cached: false,
              ok: false
            }
            yield* ledger.record(entry)
            collector?.add({ ...entry, endpoint: "none" })
            withTags(LlmMetrics.calls, { ...metricTags, outcome: "failed" }).unsafeUpdate(1, noLabels)
            if (Option.isSome(error)) {
              withTags(LlmMetrics.callFailures, {
                role: tags.role,
                reason: error.value.reason,
                class: failureClass(error.value.last)
              }).unsafeUpdate(1, noLabels)
            }
            yield* Effect.annotateCurrentSpan({
              "gen_ai.system": "openai",
              ...(Option.isSome(error)
                ? { "error.type": errorType(error.value.last), "deepnote.llm.failure.reason": error.value.reason }
                : {}),
              ...(content ? { "gen_ai.input.messages": JSON.stringify(info.input) } : {})
            })
          }
        })))
