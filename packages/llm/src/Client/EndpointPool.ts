import { HttpClient } from "@effect/platform"
import { Clock, Context, Deferred, Effect, Layer, Redacted, Schedule, type Scope, type Stream } from "effect"
import { LlmModelNotServed, LlmUnavailable } from "../Domain/LlmError.js"
import { baseUrl, LlmSettings, type LlmSettingsData } from "../LlmSettings.js"
import { AdaptiveLimit, controller } from "./AdaptiveLimit.js"
import { choose, EndpointState, type EndpointStatus, type Route, statusOf, type StructuredSupport } from "./Endpoint.js"
import { foundLimitCeiling } from "./EndpointCeiling.js"
import { makeEndpointHealth, type Outcome } from "./EndpointHealth.js"
import { makeHealthReporter } from "./HealthReporter.js"
import { startLoadPolling } from "./LoadPoller.js"
import { describeEndpoints, type LlmHealth } from "./PoolHealth.js"
import { discoverModels, healthChecks } from "./Probes.js"
import { type Waiter, Waiters } from "./Waiters.js"

export type { Outcome }

export interface EndpointPoolService {
  readonly endpoints: ReadonlyArray<EndpointState>
  /**
   * A slot on an endpoint serving the route's model (sticky by key, else least-loaded). Waits in arrival order while
   * all are busy, down or overloaded; fails with `LlmUnavailable` once it has waited `outageBudgetMs` with none of
   * them up, and at once with `LlmModelNotServed` when no endpoint serves the model.
   */
  readonly acquire: (
    route: Route,
    outageBudgetMs: number
  ) => Effect.Effect<Acquired, LlmUnavailable | LlmModelNotServed>
  readonly release: (endpoint: EndpointState, outcome: Outcome) => Effect.Effect<void>
  /** True when no endpoint serving `model` is up (every one down or overloaded). */
  readonly inOutage: (model: string | undefined) => boolean
  readonly status: Effect.Effect<ReadonlyArray<EndpointStatus>>
  readonly health: Effect.Effect<LlmHealth>
  /** The health each time the pool's state changes (ok, degraded, outage), starting with the current one. */
  readonly healthChanges: Stream.Stream<LlmHealth>
  /** The first endpoint's first `/v1/models` id. */
  readonly defaultModel: Effect.Effect<string, LlmUnavailable>
  /** Asks every endpoint's `/v1/models` again (those that answer are updated). */
  readonly rediscover: Effect.Effect<void>
}

export interface Acquired {
  readonly endpoint: EndpointState
  /** Time this acquire waited while no endpoint serving the model was up. */
  readonly outageWaitedMs: number
}

const initialStructured = (mode: LlmSettingsData["structuredOutputs"]): StructuredSupport =>
  mode === "auto" ? "structured_outputs" : mode === "off" ? "none" : mode

/**
 * A server that reports its `max_num_seqs` gets that many calls plus 1/8 more (at least 2): a short queue on the
 * server lets it admit the next sequence in the same step a slot frees, instead of waiting a round trip.
 */
export const withHeadroom = (maxNumSeqs: number): number => maxNumSeqs + Math.max(2, Math.ceil(maxNumSeqs / 8))

/** Server-side concurrency default when neither the URL, the settings nor the server say (vLLM's is 256–1024). */
export const fallbackConcurrency = 64

/** How often waiting calls are re-checked: paused endpoints reopening, outage budgets running out. */
const waiterTickMs = 50

const make = Effect.gen(function*() {
  const settings = yield* LlmSettings
  // probes and load readings send each endpoint's own headers (its credentials)
  const http = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerDisabledWhen(() => true))
  const endpoints = settings.endpoints.map((spec, i) => {
    const fixed = spec.maxNumSeqs ?? settings.perEndpointConcurrency
    const e = new EndpointState(
      i,
      baseUrl(spec.url),
      fixed ?? fallbackConcurrency,
      fixed !== undefined,
      settings.cooldownMs,
      initialStructured(settings.structuredOutputs),
      settings.ejectAfter,
      settings.apiKey === undefined ? undefined : Redacted.value(settings.apiKey)
    )
    if (fixed === undefined && settings.adaptiveConcurrency) {
      e.adaptive = new AdaptiveLimit(
        controller.initialLimit,
        foundLimitCeiling(settings),
        settings.metricsIntervalMs
      )
      e.limit = e.adaptive.value
    }
    return e
  })
  const waiters = new Waiters(endpoints)
  const reporter = yield* makeHealthReporter(settings, endpoints)
  const pool = reporter.pool
  const endpointHealth = makeEndpointHealth(settings, pool, waiters, reporter.log, (e, found) => {
    if (!e.limitFixed && e.adaptive === undefined && found.maxNumSeqs !== undefined) {
      e.limit = Math.min(withHeadroom(found.maxNumSeqs), foundLimitCeiling(settings))
    }
  })

  const release = (e: EndpointState, outcome: Outcome) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => {
        e.inFlight--
        endpointHealth.record(e, outcome, now)
        waiters.dispatch(now)
      }))

  const inOutage = (model: string | undefined) => !endpoints.some((e) => e.serves(model) && e.condition === "up")

  const notServed = (model: string) =>
    new LlmModelNotServed({
      model,
      message: `no LLM endpoint serves the model "${model}": ${
        endpoints.map((e) => `${e.url} serves ${(e.models ?? []).map((m) => `"${m}"`).join(", ") || "nothing"}`)
          .join("; ")
      }`
    })

  const unavailable = (w: Waiter) =>
    new LlmUnavailable({
      waitedMs: w.outageWaitedMs,
      message: `no LLM endpoint${w.route.model === undefined ? "" : ` serving "${w.route.model}"`} came back within ${
        (w.outageWaitedMs / 1000).toFixed(1)
      } s: ${describeEndpoints(endpoints)}`
    })

  const acquire = (route: Route, outageBudgetMs: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<Acquired, LlmUnavailable | LlmModelNotServed> => {
      const e = choose(endpoints, route, now)
      if (e !== undefined) {
        e.inFlight++
        return Effect.succeed({ endpoint: e, outageWaitedMs: 0 })
      }
      if (route.model !== undefined && !endpoints.some((x) => x.serves(route.model))) {
        return Effect.fail(notServed(route.model))
      }
      if (outageBudgetMs <= 0 && inOutage(route.model)) {
        return Effect.fail(unavailable({ route, outageWaitedMs: 0 } as Waiter))
      }
      return Deferred.make<EndpointState, LlmUnavailable>().pipe(Effect.flatMap((deferred) => {
        const w: Waiter = { route, deferred, budgetMs: outageBudgetMs, outageWaitedMs: 0, served: undefined }
        waiters.add(w)
        return Deferred.await(deferred).pipe(
          Effect.map((endpoint) => ({ endpoint, outageWaitedMs: w.outageWaitedMs })),
          Effect.onInterrupt(() =>
            w.served !== undefined ? release(w.served, { _tag: "Neutral" }) : Effect.sync(() => waiters.remove(w))
          )
        )
      }))
    })

  // why each endpoint's last `/v1/models` failed, for the message when no model is known
  const discoveryFailures = new Map<EndpointState, string>()
  const rediscover = Effect.forEach(endpoints, (e) =>
    discoverModels(http, e).pipe(
      Effect.flatMap((found) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            discoveryFailures.delete(e)
            endpointHealth.discovered(e, found)
            waiters.dispatch(now)
          }))
      ),
      Effect.catchAll((reason) => Effect.sync(() => void discoveryFailures.set(e, reason)))
    ), { concurrency: "unbounded", discard: true })

  yield* rediscover
  yield* startLoadPolling(http, endpoints, settings.metricsIntervalMs, waiters, reporter.log)
  const tick = Math.max(50, Math.min(settings.healthIntervalMs, settings.cooldownMs))
  yield* healthChecks(http, endpoints, endpointHealth, waiters).pipe(
    Effect.repeat(Schedule.spaced(tick)),
    Effect.interruptible,
    Effect.forkScoped
  )
  let lastTick = yield* Clock.currentTimeMillis
  yield* Clock.currentTimeMillis.pipe(
    Effect.tap((now) =>
      Effect.sync(() => {
        const elapsed = now - lastTick
        lastTick = now
        reporter.tick(now)
        if (waiters.size === 0) return
        waiters.dispatch(now)
        if (pool.state !== "ok") waiters.age(elapsed, unavailable)
      })
    ),
    Effect.repeat(Schedule.spaced(waiterTickMs)),
    Effect.interruptible,
    Effect.forkScoped
  )

  const firstModel = () => endpoints.find((e) => e.models !== undefined && e.models.length > 0)?.models?.[0]
  const defaultModel = Effect.suspend(() => {
    const known = firstModel()
    if (known !== undefined) return Effect.succeed(known)
    return Effect.flatMap(rediscover, () => {
      const found = firstModel()
      const answers = endpoints.map((e) => `${e.url} (${discoveryFailures.get(e) ?? "no model listed"})`).join(", ")
      return found !== undefined ? Effect.succeed(found) : Effect.fail(
        new LlmUnavailable({
          message: `no model configured and no endpoint answered /v1/models with a model id: ${answers}`
        })
      )
    })
  })

  return {
    endpoints,
    acquire,
    release,
    inOutage,
    status: Effect.sync(() => endpoints.map(statusOf)),
    health: reporter.health,
    healthChanges: reporter.changes,
    defaultModel,
    rediscover
  } satisfies EndpointPoolService
})

/**
 * The endpoint pool: per-endpoint limits, sticky and least-loaded routing by model, ejection, overload pauses and
 * half-open recovery, and the pool's health (ok, degraded, outage). No spans: `acquire`/`release` run twice per
 * attempt on the client's hot path; the attempt span records the endpoint chosen.
 */
export class EndpointPool extends Context.Tag("@deepnote-rag/llm/EndpointPool")<EndpointPool, EndpointPoolService>() {
  /** Needs the settings and an HttpClient (health probes, `/v1/models`); probes run until the scope closes. */
  static readonly make: Effect.Effect<EndpointPoolService, never, LlmSettings | HttpClient.HttpClient | Scope.Scope> =
    make

  static readonly layer = Layer.scoped(EndpointPool, EndpointPool.make)
}
