import { TraceContent, withTags } from "@deepnote-rag/core"
import { Cause, Clock, Context, Effect, Exit, Option } from "effect"
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

// Metrics are updated with `unsafeUpdate` in the finalizers that run anyway, from metrics tagged once per endpoint or
// per role and model (`withTags` hashes its tags on every use): these run on every LLM call, where a separate Effect
// per metric update, or tagging per call, cost measurable CPU (benchmarks/llm/client-cpu.mjs). No fiber-level metric
// labels are used in this project, hence the empty extra-label list.
const noLabels: ReadonlyArray<never> = []

const memo = <K, V>(make: (key: K) => V) => {
  const cache = new Map<K, V>()
  return (key: K): V => {
    let found = cache.get(key)
    if (found === undefined) cache.set(key, found = make(key))
    return found
  }
}

/** An endpoint's attempt metrics, tagged once; the per-outcome ones on first use. */
export interface AttemptMetrics {
  readonly inFlight: typeof LlmMetrics.inFlight
  readonly duration: typeof LlmMetrics.attemptDuration
  readonly outcome: (outcome: string) => typeof LlmMetrics.attempts
  readonly failure: (failureClass: string) => typeof LlmMetrics.attemptFailures
}

const attemptMetrics = memo((endpoint: string): AttemptMetrics => ({
  inFlight: withTags(LlmMetrics.inFlight, { endpoint }),
  duration: withTags(LlmMetrics.attemptDuration, { endpoint }),
  outcome: memo((outcome: string) => withTags(LlmMetrics.attempts, { endpoint, outcome })),
  failure: memo((failureClass: string) => withTags(LlmMetrics.attemptFailures, { endpoint, class: failureClass }))
}))

/** An HTTP attempt to `endpoint` starts: in flight until `attemptEnded`. */
export const attemptStarted = (endpoint: string): AttemptMetrics => {
  const metrics = attemptMetrics(endpoint)
  metrics.inFlight.unsafeUpdate(1, noLabels)
  return metrics
}

/** An attempt ended after `ms`: no longer in flight, its latency and outcome (a failure's class). */
export const attemptEnded = (metrics: AttemptMetrics, exit: Exit.Exit<unknown, LlmAttemptError>, ms: number): void => {
  metrics.inFlight.unsafeUpdate(-1, noLabels)
  metrics.duration.unsafeUpdate(ms, noLabels)
  const failed = Exit.isFailure(exit)
    ? Option.match(Cause.failureOption(exit.cause), { onNone: () => "interrupted", onSome: failureClass })
    : undefined
  metrics.outcome(failed ?? "ok").unsafeUpdate(1, noLabels)
  if (failed !== undefined) metrics.failure(failed).unsafeUpdate(1, noLabels)
}

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
const callMetrics = memo((key: string) => {
  const [role, model] = key.split("\u0000") as [string, string]
  const tags = { role, model }
  return {
    duration: withTags(LlmMetrics.callDuration, tags),
    ok: withTags(LlmMetrics.calls, { ...tags, outcome: "ok" }),
    cached: withTags(LlmMetrics.calls, { ...tags, outcome: "cached" }),
    failed: withTags(LlmMetrics.calls, { ...tags, outcome: "failed" }),
    cacheHits: withTags(LlmMetrics.cacheHits, tags),
    inputTokens: withTags(LlmMetrics.tokens, { ...tags, type: "input" }),
    outputTokens: withTags(LlmMetrics.tokens, { ...tags, type: "output" }),
    failure: memo((reasonAndClass: string) => {
      const [reason, failureClass] = reasonAndClass.split("\u0000") as [string, string]
      return withTags(LlmMetrics.callFailures, { role, reason, class: failureClass })
    })
  }
})

export const observeCall =
  <A extends CallOutcome>(ledger: UsageLedgerService, info: CallInfo, output: (a: A) => unknown) =>
  <R>(self: Effect.Effect<A, LlmCallError, R>): Effect.Effect<A, LlmCallError, R> =>
    Effect.withFiberRuntime((fiber) => {
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const start = clock.unsafeCurrentTimeMillis()
      return Effect.onExit(self, (exit) => {
        const { tags } = info
        const metrics = callMetrics(`${tags.role}\u0000${info.model}`)
        const end = clock.unsafeCurrentTimeMillis()
        const content = Context.get(fiber.currentContext, TraceContent)
        const collector = fiber.getFiberRef(currentUsageCollector)
        const span = fiber.currentSpan?._tag === "Span" ? fiber.currentSpan : undefined
        metrics.duration.unsafeUpdate(end - start, noLabels)
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
          collector?.add({ ...entry, model: r.model, endpoint: r.endpoint })
          if (r.cached) {
            metrics.cached.unsafeUpdate(1, noLabels)
            metrics.cacheHits.unsafeUpdate(1, noLabels)
          } else {
            metrics.ok.unsafeUpdate(1, noLabels)
            metrics.inputTokens.unsafeUpdate(promptTokens, noLabels)
            metrics.outputTokens.unsafeUpdate(completionTokens, noLabels)
          }
          if (span !== undefined) {
            span.attribute("gen_ai.system", "openai")
            span.attribute("gen_ai.response.model", r.model)
            span.attribute("gen_ai.usage.input_tokens", promptTokens)
            span.attribute("gen_ai.usage.output_tokens", completionTokens)
            span.attribute("deepnote.llm.cached", r.cached)
            span.attribute("deepnote.llm.attempts", r.attempts)
            if (content) {
              span.attribute("gen_ai.input.messages", JSON.stringify(info.input))
              span.attribute("gen_ai.output.messages", JSON.stringify(output(r)))
            }
          }
          return ledger.record(entry)
        }
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
        collector?.add({ ...entry, endpoint: "none" })
        metrics.failed.unsafeUpdate(1, noLabels)
        if (Option.isSome(error)) {
          metrics.failure(`${error.value.reason}\u0000${failureClass(error.value.last)}`).unsafeUpdate(1, noLabels)
        }
        if (span !== undefined) {
          span.attribute("gen_ai.system", "openai")
          if (Option.isSome(error)) {
            span.attribute("error.type", errorType(error.value.last))
            span.attribute("deepnote.llm.failure.reason", error.value.reason)
          }
          if (content) span.attribute("gen_ai.input.messages", JSON.stringify(info.input))
        }
        return ledger.record(entry)
      })
    })
