import type { HttpClient } from "@effect/platform"
import { Cause, Effect, Exit, Option, Random, RateLimiter, type Scope } from "effect"
import type { CallTags } from "../Domain/Chat.js"
import { type LlmAttemptError, LlmCallError } from "../Domain/LlmError.js"
import type { LlmSettingsData } from "../LlmSettings.js"
import type { UsageLedgerService } from "../UsageLedger.js"
import { type AttemptReply, type AttemptRequest, runAttempt } from "./Attempt.js"
import { backoffMs } from "./Backoff.js"
import { observeAttempt } from "./CallTelemetry.js"
import type { EndpointState } from "./Endpoint.js"
import type { EndpointPoolService, Outcome } from "./EndpointPool.js"
import { downgrade, isContextTooLong } from "./Structured.js"

/** One logical call: how to build its HTTP request for a given endpoint, plus tags for spans and budgets. */
export interface Call {
  readonly tags: CallTags
  readonly operation: "chat" | "text_completion"
  readonly model: string
  readonly build: (
    endpoint: EndpointState
  ) => { readonly request: Omit<AttemptRequest, "endpoint" | "timeoutMs">; readonly structured: boolean }
}

export interface Executed {
  readonly reply: AttemptReply
  readonly endpoint: EndpointState
  readonly attempts: number
  readonly structuredSent: boolean
}

type Step =
  | { readonly _tag: "Done"; readonly value: Omit<Executed, "attempts"> }
  | { readonly _tag: "Fail"; readonly error: LlmCallError }
  | {
    readonly _tag: "Retry"
    readonly delayMs: number
    readonly avoid: EndpointState | undefined
    readonly counted: boolean
  }

const healthOutcome = (exit: Exit.Exit<unknown, LlmAttemptError>): Outcome => {
  if (Exit.isSuccess(exit)) return "success"
  const found = Cause.failureOption(exit.cause)
  if (Option.isNone(found)) return "neutral"
  const failure = found.value
  if (failure._tag === "LlmHttpError") return failure.status >= 500 ? "failure" : "neutral"
  return failure._tag === "LlmUnavailable" ? "neutral" : "failure"
}

/**
 * Runs calls through the global in-flight limit, the optional rate limiter and the endpoint pool, one
 * `LlmClient.attempt` span per attempt, retrying transient failures with jittered exponential backoff (or the
 * server's `Retry-After`) within the per-call attempt budget and the per-run retry budget.
 */
export const makeExecutor = (deps: {
  readonly settings: LlmSettingsData
  readonly http: HttpClient.HttpClient
  readonly pool: EndpointPoolService
  readonly ledger: UsageLedgerService
  readonly headers: Record<string, string>
}): Effect.Effect<(call: Call) => Effect.Effect<Executed, LlmCallError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { http, ledger, pool, settings } = deps
    const global = yield* Effect.makeSemaphore(settings.globalInFlight)
    const limit = settings.rps === undefined
      ? <A, E, R>(self: Effect.Effect<A, E, R>) => self
      : yield* RateLimiter.make({
        limit: Math.max(1, Math.round(settings.rps)),
        interval: "1 second",
        algorithm: "token-bucket"
      })
    const budgets = new Map<string, number>()
    const takeRetry = (runId: string | undefined) => {
      const key = runId ?? ""
      const left = budgets.get(key) ?? settings.runRetryBudget
      if (left <= 0) return false
      budgets.set(key, left - 1)
      return true
    }

    const attemptStep = (call: Call, attempt: number, counted: number, avoid: EndpointState | undefined) =>
      Effect.gen(function*() {
        let endpoint: EndpointState | undefined
        let structured = false
        const use = (e: EndpointState) => {
          endpoint = e
          e.requests++
          const built = call.build(e)
          structured = built.structured
          return runAttempt(http, {
            ...built.request,
            endpoint: e.url,
            timeoutMs: settings.attemptTimeoutMs,
            headers: { ...deps.headers, ...built.request.headers }
          }).pipe(observeAttempt(e.url))
        }
        // Waiting for a slot stays interruptible (acquireUseRelease's acquire would not be); a held slot is always released.
        const onEndpoint = Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(restore(pool.acquire(call.tags.questionId, avoid)), (e) =>
            restore(use(e)).pipe(Effect.onExit((exit) => pool.release(e, healthOutcome(exit)))))
        )
        const exit = yield* Effect.exit(global.withPermits(1)(limit(onEndpoint)))
        yield* Effect.annotateCurrentSpan({
          "server.address": endpoint?.url ?? "none",
          "deepnote.llm.structured": structured
        })
        if (Exit.isSuccess(exit)) {
          const usage = exit.value.usage
          if (usage) {
            yield* Effect.annotateCurrentSpan({
              "gen_ai.usage.input_tokens": usage.prompt_tokens,
              "gen_ai.usage.output_tokens": usage.completion_tokens
            })
          }
          return {
            _tag: "Done",
            value: { reply: exit.value, endpoint: endpoint!, structuredSent: structured }
          } satisfies Step
        }
        const found = Cause.failureOption(exit.cause)
        if (Option.isNone(found)) {
          return yield* Effect.orDie(Effect.failCause(exit.cause))
        }
        const error = found.value
        yield* Effect.annotateCurrentSpan({
          "deepnote.llm.error": error._tag,
          "deepnote.llm.error.message": error.message
        })
        const fail = (reason: LlmCallError["reason"], why: string): Step => ({
          _tag: "Fail",
          error: new LlmCallError({
            message: `LLM ${call.tags.role} call ${why} after ${attempt} attempt(s): ${error.message}`,
            attempts: attempt,
            reason,
            last: error
          })
        })
        if (
          error._tag === "LlmHttpError" && error.status === 400 && structured && endpoint !== undefined &&
          !isContextTooLong(error.message)
        ) {
          endpoint.structured = downgrade(endpoint.structured)
          yield* ledger.structuredFallback(call.tags)
          yield* Effect.annotateCurrentSpan({
            "deepnote.llm.retry.reason": "structured-outputs-rejected",
            "deepnote.llm.structured.next": endpoint.structured
          })
          yield* Effect.logWarning(
            `${endpoint.url} rejected structured outputs; continuing with "${endpoint.structured}"`
          )
          return { _tag: "Retry", delayMs: 0, avoid: undefined, counted: false } satisfies Step
        }
        if (!error.transient) {
          return fail("permanent", "failed")
        }
        if (counted >= settings.maxAttempts) {
          return fail("attempts-exhausted", "gave up")
        }
        if (!takeRetry(call.tags.runId)) {
          return fail("retry-budget-exhausted", "stopped (run retry budget spent)")
        }
        const retryAfterMs = error._tag === "LlmHttpError" ? error.retryAfterMs : undefined
        const delayMs = backoffMs(counted, {
          baseMs: settings.backoffBaseMs,
          maxMs: settings.backoffMaxMs,
          retryAfterMs
        }, yield* Random.next)
        yield* Effect.annotateCurrentSpan({
          "deepnote.llm.retry.reason": error._tag === "LlmHttpError" ? `status ${error.status}` : error._tag,
          "deepnote.llm.retry.backoff_ms": delayMs
        })
        return { _tag: "Retry", delayMs, avoid: endpoint, counted: true } satisfies Step
      }).pipe(Effect.withSpan("LlmClient.attempt", {
        kind: "client",
        captureStackTrace: false,
        attributes: {
          "deepnote.llm.attempt": attempt,
          "deepnote.role": call.tags.role,
          "gen_ai.operation.name": call.operation,
          "gen_ai.request.model": call.model,
          "gen_ai.system": "openai"
        }
      }))

    return (call: Call) =>
      Effect.gen(function*() {
        let attempt = 0
        let counted = 0
        let avoid: EndpointState | undefined
        while (true) {
          attempt++
          const step: Step = yield* attemptStep(call, attempt, counted + 1, avoid)
          if (step._tag === "Done") {
            return { ...step.value, attempts: attempt }
          }
          if (step._tag === "Fail") {
            return yield* Effect.fail(step.error)
          }
          if (step.counted) {
            counted++
          }
          avoid = step.avoid
          if (step.delayMs > 0) {
            yield* Effect.sleep(step.delayMs)
          }
        }
      })
  })
