import type { HttpClient } from "@effect/platform"
import { Cause, Clock, Effect, Exit, Option, Random, RateLimiter, type Scope } from "effect"
import type { LlmAttemptError, LlmCallError } from "../Domain/LlmError.js"
import type { ResolvedCallPolicy } from "../LlmCallPolicy.js"
import type { LlmSettingsData } from "../LlmSettings.js"
import { adjust } from "./Adjust.js"
import { type AttemptReply, type AttemptRequest, runAttempt } from "./Attempt.js"
import { observeAttempt } from "./CallTelemetry.js"
import type { EndpointState } from "./Endpoint.js"
import type { EndpointPoolService } from "./EndpointPool.js"
import { describeEndpoints } from "./PoolHealth.js"
import { callFailure, type CallState, decide, type Decision, errorType, outcomeOf } from "./RetryDecision.js"
import { RetryThrottle } from "./RetryThrottle.js"
import type { StreamDelta } from "./Sse.js"

/** Who is calling, for spans, sticky routing and messages: a role's `CallTags`, or `embed` for embeddings. */
export interface ExecutorTags {
  readonly role: string
  readonly questionId?: string | undefined
}

/** One logical call: how to build its HTTP request for a given endpoint, plus tags for spans and budgets. */
export interface Call<T extends ExecutorTags = ExecutorTags> {
  readonly tags: T
  readonly operation: "chat" | "text_completion" | "embeddings"
  readonly model: string
  readonly policy: ResolvedCallPolicy
  /** A streamed call's deltas, as they arrive (retries happen only before the first). */
  readonly onDelta?: ((delta: StreamDelta) => void) | undefined
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

/**
 * Runs calls through the global in-flight limit, the optional rate limiter and the endpoint pool, one
 * `LlmClient.attempt` span per attempt (status ERROR with `error.type` when it fails), retrying as `decide` says:
 * transient failures with backoff within `maxAttempts`, overload answers and outages within the call's outage
 * tolerance, every retry paced by the retry throttle (a token bucket).
 */
export const makeExecutor = <T extends ExecutorTags>(deps: {
  readonly settings: LlmSettingsData
  readonly http: HttpClient.HttpClient
  readonly pool: EndpointPoolService
  /** Counts a request retried without its structured-output fields (the usage ledger's `structuredFallback`). */
  readonly structuredFallback: (tags: T) => Effect.Effect<void>
  readonly headers: Record<string, string>
}): Effect.Effect<(call: Call<T>) => Effect.Effect<Executed, LlmCallError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { http, pool, settings } = deps
    const global = yield* Effect.makeSemaphore(settings.globalInFlight)
    const limit = settings.rps === undefined
      ? <A, E, R>(self: Effect.Effect<A, E, R>) => self
      : yield* RateLimiter.make({
        limit: Math.max(1, Math.round(settings.rps)),
        interval: "1 second",
        algorithm: "token-bucket"
      })
    const throttle = new RetryThrottle(
      settings.retryTokens,
      settings.retryTokensPerSuccess,
      settings.retryTokensPerSecond,
      yield* Clock.currentTimeMillis
    )

    /** One attempt in its span; a failure carries the decision made inside the span (annotated on it). */
    const attempt = (call: Call<T>, state: CallState) => {
      let endpoint: EndpointState | undefined
      let structured = false
      let sentAt: number | undefined
      let decision: Decision | undefined
      const use = (e: EndpointState) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          endpoint = e
          sentAt = now
          e.requests++
          const built = call.build(e)
          structured = built.structured
          const onDelta = call.onDelta
          return runAttempt(http, {
            ...built.request,
            endpoint: e.url,
            timeoutMs: settings.attemptTimeoutMs,
            headers: { ...deps.headers, ...built.request.headers },
            onDelta: onDelta === undefined ? undefined : (delta) => {
              state.started = true
              onDelta(delta)
            }
          }).pipe(observeAttempt(e.url))
        })
      const budget = Math.max(0, call.policy.outageToleranceMs - state.waitedMs)
      const route = {
        key: call.tags.questionId,
        avoid: state.avoid,
        model: call.model,
        priority: call.policy.priority
      }
      // Waiting for a slot stays interruptible (acquireUseRelease's acquire would not be); a held slot is always released.
      const onEndpoint = Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(pool.acquire(route, budget)), (acquired) => {
          state.waitedMs += acquired.outageWaitedMs
          return restore(use(acquired.endpoint)).pipe(
            Effect.onExit((exit) =>
              pool.release(
                acquired.endpoint,
                Exit.isSuccess(exit)
                  ? { _tag: "Success", sentAt, outputTokens: exit.value.usage?.completion_tokens }
                  : Option.match(Cause.failureOption(exit.cause), {
                    onNone: () => ({ _tag: "Neutral" }),
                    onSome: outcomeOf
                  })
              )
            )
          )
        })
      )
      return Effect.gen(function*() {
        const exit = yield* Effect.exit(global.withPermits(1)(limit(onEndpoint)))
        yield* Effect.annotateCurrentSpan({
          "server.address": endpoint?.url ?? "none",
          "deepnote.llm.structured": structured
        })
        if (Exit.isSuccess(exit)) {
          throttle.success(yield* Clock.currentTimeMillis)
          const usage = exit.value.usage
          if (usage) {
            yield* Effect.annotateCurrentSpan({
              "gen_ai.usage.input_tokens": usage.prompt_tokens,
              "gen_ai.usage.output_tokens": usage.completion_tokens
            })
          }
          return { reply: exit.value, endpoint: endpoint!, structuredSent: structured }
        }
        const found = Cause.failureOption(exit.cause)
        if (Option.isNone(found)) return yield* Effect.orDie(Effect.failCause(exit.cause))
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
          decision = adjusted
          return yield* Effect.fail(error)
        }
        const d = decide({
          error,
          endpoint,
          state,
          settings,
          policy: call.policy,
          outage: pool.inOutage(call.model),
          elsewhere: pool.endpoints.some((e) =>
            e !== endpoint && e.serves(call.model) && e.condition === "up" && e.available(now)
          ),
          sentMs: sentAt === undefined ? 0 : now - sentAt,
          random: yield* Random.next
        })
        if (d._tag === "Retry") {
          const wait = d.throttled ? throttle.reserve(now) : 0
          decision = { ...d, delayMs: Math.max(d.delayMs, wait) }
          if (!d.counted) state.waitedMs += sentAt === undefined ? 0 : now - sentAt
          yield* Effect.annotateCurrentSpan({
            "deepnote.llm.retry.reason": d.why,
            "deepnote.llm.retry.backoff_ms": decision.delayMs,
            "deepnote.llm.retry.counted": d.counted,
            ...(wait > d.delayMs ? { "deepnote.llm.retry.throttled_ms": wait } : {})
          })
        } else {
          decision = d
        }
        return yield* Effect.fail(error)
      }).pipe(
        Effect.withSpan("LlmClient.attempt", {
          kind: "client",
          captureStackTrace: false,
          attributes: {
            "deepnote.llm.attempt": state.attempt,
            "deepnote.role": call.tags.role,
            "gen_ai.operation.name": call.operation,
            "gen_ai.request.model": call.model,
            "gen_ai.system": "openai"
          }
        }),
        Effect.mapError((error) => ({ error, decision: decision! }))
      )
    }

    const failure = (call: Call<T>, state: CallState, reason: LlmCallError["reason"], last: LlmAttemptError) =>
      callFailure(
        call.operation === "embeddings"
          ? { label: "embeddings", servers: "embeddings servers" }
          : { label: `LLM ${call.tags.role}`, servers: "LLM servers" },
        call.policy,
        state,
        reason,
        last,
        describeEndpoints(pool.endpoints)
      )

    return (call: Call<T>) =>
      Effect.gen(function*() {
        const state: CallState = {
          attempt: 0,
          counted: 0,
          uncounted: 0,
          waitedMs: 0,
          avoid: undefined,
          started: false
        }
        while (true) {
          state.attempt++
          const result = yield* Effect.either(attempt(call, state))
          if (result._tag === "Right") return { ...result.right, attempts: state.attempt }
          const { decision, error } = result.left
          if (decision._tag === "Fail") return yield* Effect.fail(failure(call, state, decision.reason, error))
          if (decision.counted) state.counted++
          else if (decision.adjusted !== true) {
            state.uncounted++
            state.waitedMs += decision.delayMs
          }
          state.avoid = decision.avoid
          if (decision.delayMs > 0) yield* Effect.sleep(decision.delayMs)
        }
      })
  })
