import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Clock, Context, Deferred, Effect, Exit, Layer, Redacted, Schedule, Schema, type Scope } from "effect"
import { LlmUnavailable } from "../Domain/LlmError.js"
import { ModelList } from "../Domain/Wire.js"
import { baseUrl, LlmSettings, type LlmSettingsData } from "../LlmSettings.js"
import { choose, EndpointState, type EndpointStatus, statusOf, type StructuredSupport } from "./Endpoint.js"

/** How a finished attempt reflects on an endpoint's health. */
export type Outcome = "success" | "failure" | "neutral"

interface Waiter {
  readonly key: string | undefined
  readonly avoid: EndpointState | undefined
  readonly deferred: Deferred.Deferred<EndpointState, LlmUnavailable>
  served: EndpointState | undefined
}

export interface EndpointPoolService {
  readonly endpoints: ReadonlyArray<EndpointState>
  /** A slot on an endpoint (sticky by key, else least-loaded); waits FIFO while all are busy. */
  readonly acquire: (key: string | undefined, avoid?: EndpointState) => Effect.Effect<EndpointState, LlmUnavailable>
  readonly release: (endpoint: EndpointState, outcome: Outcome) => Effect.Effect<void>
  readonly status: Effect.Effect<ReadonlyArray<EndpointStatus>>
  /** The first endpoint's first `/v1/models` id. */
  readonly defaultModel: Effect.Effect<string, LlmUnavailable>
}

const initialStructured = (mode: LlmSettingsData["structuredOutputs"]): StructuredSupport =>
  mode === "auto" ? "structured_outputs" : mode === "off" ? "none" : mode

/**
 * A server that reports its `max_num_seqs` gets that many calls plus 1/8 more (at least 2): a short queue on the
 * server lets it admit the next sequence in the same step a slot frees, instead of waiting a round trip.
 */
export const withHeadroom = (maxNumSeqs: number): number => maxNumSeqs + Math.max(2, Math.ceil(maxNumSeqs / 8))

/** Server-side concurrency default when neither the URL, the settings nor the server say (vLLM's is 256–1024). */
const fallbackConcurrency = 64

const make = Effect.gen(function*() {
  const settings = yield* LlmSettings
  const http = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest(
      settings.apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(Redacted.value(settings.apiKey))
    ),
    HttpClient.withTracerDisabledWhen(() => true)
  )
  const endpoints = settings.endpoints.map((spec, i) => {
    const fixed = spec.maxNumSeqs ?? settings.perEndpointConcurrency
    return new EndpointState(
      i,
      baseUrl(spec.url),
      fixed ?? fallbackConcurrency,
      fixed !== undefined,
      settings.cooldownMs,
      initialStructured(settings.structuredOutputs)
    )
  })
  const waiters: Array<Waiter> = []

  const dispatch = () => {
    while (waiters.length > 0) {
      const w = waiters[0]!
      const e = choose(endpoints, w.key, w.avoid)
      if (e === undefined) break
      waiters.shift()
      e.inFlight++
      w.served = e
      Deferred.unsafeDone(w.deferred, Exit.succeed(e))
    }
  }
  const unavailable = () =>
    new LlmUnavailable({
      message: `all ${endpoints.length} LLM endpoint(s) are ejected after failures: ${
        endpoints.map((e) => e.url).join(", ")
      }`
    })

  const eject = (e: EndpointState, now: number) => {
    e.health = "ejected"
    e.ejectedUntil = now + e.cooldownMs
    e.ejections++
    if (!endpoints.some((x) => x.health === "healthy")) {
      for (const w of waiters.splice(0)) Deferred.unsafeDone(w.deferred, Exit.fail(unavailable()))
    }
  }
  const recover = (e: EndpointState) => {
    e.health = "healthy"
    e.consecutiveFailures = 0
    e.cooldownMs = e.baseCooldownMs
    dispatch()
  }
  // The last healthy endpoint is never ejected ("panic mode"): with nowhere else to go, retries with backoff do better
  // than failing every call until a probe succeeds.
  const fail = (e: EndpointState, now: number) => {
    e.consecutiveFailures++
    const others = endpoints.some((x) => x !== e && x.health === "healthy")
    if (e.health === "healthy" && others && e.consecutiveFailures >= settings.ejectAfter) eject(e, now)
  }

  const release = (e: EndpointState, outcome: Outcome) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => {
        e.inFlight--
        if (outcome === "success") e.consecutiveFailures = 0
        else if (outcome === "failure") fail(e, now)
        dispatch()
      }))

  const acquire = (key: string | undefined, avoid?: EndpointState) =>
    Effect.suspend(() => {
      const e = choose(endpoints, key, avoid)
      if (e !== undefined) {
        e.inFlight++
        return Effect.succeed(e)
      }
      if (!endpoints.some((x) => x.health === "healthy")) return Effect.fail(unavailable())
      return Deferred.make<EndpointState, LlmUnavailable>().pipe(Effect.flatMap((deferred) => {
        const w: Waiter = { key, avoid, deferred, served: undefined }
        waiters.push(w)
        return Deferred.await(deferred).pipe(Effect.onInterrupt(() =>
          w.served !== undefined ? release(w.served, "neutral") : Effect.sync(() => {
            const i = waiters.indexOf(w)
            if (i >= 0) waiters.splice(i, 1)
          })
        ))
      }))
    })

  const get = (url: string) =>
    http.get(url).pipe(
      Effect.flatMap(HttpClientResponse.filterStatusOk),
      Effect.flatMap((r) => r.text),
      Effect.timeout("5 seconds")
    )

  const discover = (e: EndpointState) =>
    get(`${e.url}/v1/models`).pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(ModelList))),
      Effect.tap((list) =>
        Effect.sync(() => {
          e.models = list.data.map((m) => m.id)
          e.maxModelLen = list.data[0]?.max_model_len ?? undefined
          const seqs = list.data[0]?.max_num_seqs
          if (!e.limitFixed && typeof seqs === "number" && seqs > 0) e.limit = withHeadroom(seqs)
          dispatch()
        })
      ),
      Effect.asVoid
    )

  const probe = (e: EndpointState) => get(`${e.url}/health`).pipe(Effect.as(true), Effect.orElseSucceed(() => false))

  const check = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    yield* Effect.forEach(endpoints, (e) =>
      Effect.gen(function*() {
        if (e.health === "ejected" && now < e.ejectedUntil) return
        const ok = yield* probe(e)
        const after = yield* Clock.currentTimeMillis
        if (ok && e.health === "ejected") {
          yield* Effect.logInfo(`LLM endpoint ${e.url} recovered`)
          recover(e)
        } else if (!ok && e.health === "ejected") {
          e.cooldownMs = Math.min(e.cooldownMs * 2, e.baseCooldownMs * 16)
          e.ejectedUntil = after + e.cooldownMs
        } else if (!ok) {
          fail(e, after)
          if (e.health === "ejected") {
            yield* Effect.logWarning(`LLM endpoint ${e.url} ejected after failed health checks`)
          }
        }
      }), { concurrency: "unbounded", discard: true })
  })

  yield* Effect.forEach(endpoints, (e) => discover(e).pipe(Effect.ignore), { concurrency: "unbounded", discard: true })
  const tick = Math.max(50, Math.min(settings.healthIntervalMs, settings.cooldownMs))
  yield* check.pipe(Effect.repeat(Schedule.spaced(tick)), Effect.interruptible, Effect.forkScoped)

  const defaultModel = Effect.suspend(() => {
    const known = endpoints.find((e) => e.models !== undefined && e.models.length > 0)
    if (known !== undefined) return Effect.succeed(known.models![0]!)
    return Effect.firstSuccessOf(endpoints.map(discover)).pipe(
      Effect.flatMap(() =>
        Effect.suspend(() => {
          const found = endpoints.find((e) => e.models !== undefined && e.models.length > 0)
          return found === undefined ? Effect.fail(undefined) : Effect.succeed(found.models![0]!)
        })
      ),
      Effect.mapError(() =>
        new LlmUnavailable({ message: "no model configured and no endpoint answered /v1/models with a model id" })
      )
    )
  })

  return {
    endpoints,
    acquire,
    release,
    status: Effect.sync(() => endpoints.map(statusOf)),
    defaultModel
  } satisfies EndpointPoolService
})

/**
 * The endpoint pool: per-endpoint limits, sticky and least-loaded routing, ejection and half-open recovery. No spans:
 * `acquire`/`release` run twice per attempt on the client's hot path; the attempt span records the endpoint chosen.
 */
export class EndpointPool extends Context.Tag("@deepnote/llm/EndpointPool")<EndpointPool, EndpointPoolService>() {
  /** Needs the settings and an HttpClient (health probes, `/v1/models`); probes run until the scope closes. */
  static readonly make: Effect.Effect<EndpointPoolService, never, LlmSettings | HttpClient.HttpClient | Scope.Scope> =
    make

  static readonly layer = Layer.scoped(EndpointPool, EndpointPool.make)
}
