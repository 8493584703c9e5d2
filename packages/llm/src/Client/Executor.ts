import { withHotSpan } from "@deepnote-rag/core"
import type { HttpClient } from "@effect/platform"
import { Cause, Clock, Context, Effect, Exit, Option, RateLimiter, type Scope } from "effect"
import type { LlmAttemptError, LlmCallError } from "../Domain/LlmError.js"
import type { LlmSettingsData } from "../LlmSettings.js"
import { runAttempt } from "./Attempt.js"
import { decideAfterFailure } from "./AttemptFailure.js"
import type { Call, Executed, ExecutorTags } from "./Call.js"
import { attemptEnded, attemptStarted } from "./CallTelemetry.js"
import type { EndpointState } from "./Endpoint.js"
import type { EndpointPoolService } from "./EndpointPool.js"
import { Gate } from "./Gate.js"
import { describeEndpoints } from "./PoolHealth.js"
import { callFailure, type CallState, type Decision, outcomeOf } from "./RetryDecision.js"
import { RetryThrottle } from "./RetryThrottle.js"
import { makeTransport } from "./Transport.js"

/**
 * Runs calls through the global in-flight limit, the optional rate limiter and the endpoint pool, one
 * `LlmClient.attempt` span per attempt (status ERROR with `error.type` when it fails), retrying as `decide` says:
 * transient failures with backoff within `maxAttempts`, overload answers and outages within the call's outage
 * tolerance, every retry paced by the retry throttle (a token bucket).
 */
export const makeExecutor = <T extends ExecutorTags>(deps: {
  readonly settings: LlmSettingsData
  /** The client in context as it was provided (`makeTransport` recognises `LlmHttp`'s own). */
  readonly http: HttpClient.HttpClient
  readonly pool: EndpointPoolService
  /** Counts a request retried without its structured-output fields (the usage ledger's `structuredFallback`). */
  readonly structuredFallback: (tags: T) => Effect.Effect<void>
}): Effect.Effect<(call: Call<T>) => Effect.Effect<Executed, LlmCallError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { pool, settings } = deps
    const transport = makeTransport(deps.http)
    const global = new Gate(settings.globalInFlight)
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
    const failureDeps = { settings, pool, throttle, structuredFallback: deps.structuredFallback }

    /**
     * One attempt in its span; a failure's decision, made inside the span (annotated on it), is left in `decided`.
     * The success path is a handful of run-loop steps: clock reads, span attributes and the attempt's metrics are
     * synchronous (benchmarks/llm/client-cpu.mjs).
     */
    const attempt = (call: Call<T>, state: CallState, decided: { decision: Decision | undefined }) =>
      Effect.withFiberRuntime<Omit<Executed, "attempts">, LlmAttemptError>((fiber) => {
        const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
        let endpoint: EndpointState | undefined
        let structured = false
        let sentAt: number | undefined
        const send = (e: EndpointState) => {
          endpoint = e
          sentAt = clock.unsafeCurrentTimeMillis()
          e.requests++
          const built = call.build(e)
          structured = built.structured
          const onDelta = call.onDelta
          return runAttempt(transport, {
            ...built.request,
            endpoint: e.url,
            timeoutMs: settings.attemptTimeoutMs,
            // the endpoint's credentials (`endpointAuthorization`), then the call's own headers
            headers: { ...e.headers, ...built.request.headers },
            onDelta: onDelta === undefined ? undefined : (delta) => {
              state.started = true
              onDelta(delta)
            }
          })
        }
        const budget = Math.max(0, call.policy.outageToleranceMs - state.waitedMs)
        const route = {
          key: call.tags.questionId,
          avoid: state.avoid,
          model: call.model,
          priority: call.policy.priority
        }
        // Waiting for the global permit and a slot stays interruptible (acquireUseRelease's acquire would not be); a
        // held permit and slot are always released, and the attempt's metrics recorded, in one finalizer.
        const onEndpoint = Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(
            restore(global.take),
            () =>
              Effect.matchCauseEffect(restore(limit(pool.acquire(route, budget))), {
                onFailure: (cause) => {
                  global.release()
                  return Effect.failCause(cause)
                },
                onSuccess: (acquired) => {
                  state.waitedMs += acquired.outageWaitedMs
                  const metrics = attemptStarted(acquired.endpoint.url)
                  return Effect.onExit(restore(send(acquired.endpoint)), (exit) => {
                    global.release()
                    attemptEnded(metrics, exit, clock.unsafeCurrentTimeMillis() - sentAt!)
                    return pool.release(
                      acquired.endpoint,
                      Exit.isSuccess(exit)
                        ? { _tag: "Success", sentAt, outputTokens: exit.value.usage?.completion_tokens }
                        : Option.match(Cause.failureOption(exit.cause), {
                          onNone: () => ({ _tag: "Neutral" }),
                          onSome: outcomeOf
                        })
                    )
                  })
                }
              })
          )
        )
        const failed = (cause: Cause.Cause<LlmAttemptError>) =>
          decideAfterFailure(cause, { call, state, decided, endpoint, structured, sentAt }, failureDeps)
        return Effect.matchCauseEffect(onEndpoint, {
          onSuccess: (reply) => {
            const span = fiber.currentSpan
            if (span?._tag === "Span") {
              span.attribute("server.address", endpoint?.url ?? "none")
              span.attribute("deepnote.llm.structured", structured)
              if (reply.usage) {
                span.attribute("gen_ai.usage.input_tokens", reply.usage.prompt_tokens)
                span.attribute("gen_ai.usage.output_tokens", reply.usage.completion_tokens)
              }
            }
            throttle.success(clock.unsafeCurrentTimeMillis())
            return Effect.succeed({ reply, endpoint: endpoint!, structuredSent: structured })
          },
          onFailure: failed
        })
      }).pipe(
        withHotSpan("LlmClient.attempt", {
          kind: "client",
          attributes: {
            "deepnote.llm.attempt": state.attempt,
            "deepnote.role": call.tags.role,
            "gen_ai.operation.name": call.operation,
            "gen_ai.request.model": call.model,
            "gen_ai.system": "openai"
          }
        })
      )

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

    /** Attempts until one succeeds or the decision is to fail; a retry waits its delay first. */
    const run = (call: Call<T>, state: CallState): Effect.Effect<Executed, LlmCallError> => {
      state.attempt++
      const decided: { decision: Decision | undefined } = { decision: undefined }
      return Effect.matchEffect(attempt(call, state, decided), {
        onSuccess: (done) => Effect.succeed({ ...done, attempts: state.attempt }),
        onFailure: (error) => {
          const decision = decided.decision!
          if (decision._tag === "Fail") return Effect.fail(failure(call, state, decision.reason, error))
          if (decision.counted) state.counted++
          else if (decision.adjusted !== true) {
            state.uncounted++
            state.waitedMs += decision.delayMs
          }
          state.avoid = decision.avoid
          const next = Effect.suspend(() => run(call, state))
          return decision.delayMs > 0 ? Effect.zipRight(Effect.sleep(decision.delayMs), next) : next
        }
      })
    }

    return (call: Call<T>) =>
      Effect.suspend(() =>
        run(call, {
          attempt: 0,
          counted: 0,
          uncounted: 0,
          waitedMs: 0,
          avoid: undefined,
          started: false
        })
      )
  })
