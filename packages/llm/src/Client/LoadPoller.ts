import { type HttpClient, HttpClientResponse } from "@effect/platform"
import { Clock, Effect, Option, Random } from "effect"
import type { LimitChange } from "./AdaptiveLimit.js"
import type { EndpointState } from "./Endpoint.js"
import type { HealthLog } from "./EndpointHealth.js"
import { parseServerLoad } from "./ServerLoad.js"
import type { Waiters } from "./Waiters.js"

/** A reading older than this is stale: the controller ignores it (routers for shared vLLM use the same bound). */
export const staleAfterMs = 2000

/** A server without `/metrics` is asked again this rarely. */
const missingRetryMs = 30_000

/**
 * Reads an endpoint's `/metrics` every `intervalMs` and hands the load to its adaptive limit; without a fresh reading
 * (no vLLM metrics, or the server too slow to answer) the latency gradient steers instead. `demand` says whether calls
 * are waiting for a slot; `changed` is told each change of the limit (to wake waiting calls).
 */
export const pollLoad = (
  http: HttpClient.HttpClient,
  e: EndpointState,
  intervalMs: number,
  demand: () => boolean,
  changed: (change: LimitChange, now: number) => void
) => {
  let lastMissingTry = Number.NEGATIVE_INFINITY
  const read = http.get(`${e.url}/metrics`, { headers: e.headers }).pipe(
    Effect.flatMap((r) =>
      r.status === 404
        ? Effect.as(r.text, undefined)
        : Effect.flatMap(HttpClientResponse.filterStatusOk(r), (ok) => ok.text)
    ),
    Effect.timeout(Math.max(intervalMs, 1000)),
    Effect.option
  )
  const once = Effect.gen(function*() {
    const adaptive = e.adaptive
    if (adaptive === undefined || e.condition === "down") return
    const start = yield* Clock.currentTimeMillis
    if (!e.metricsMissing || start - lastMissingTry >= missingRetryMs) {
      if (e.metricsMissing) lastMissingTry = start
      const text = yield* read
      const load = Option.isSome(text) && text.value !== undefined ? parseServerLoad(text.value) : undefined
      if (Option.isSome(text)) e.metricsMissing = load === undefined
      const now = yield* Clock.currentTimeMillis
      if (load !== undefined) {
        e.loadAt = now
        const change = adaptive.observe(load, e.inFlight, demand(), e.maxNumSeqs, now)
        if (change !== undefined) changed(change, now)
        return
      }
    }
    const now = yield* Clock.currentTimeMillis
    if (now - e.loadAt > staleAfterMs) {
      const change = adaptive.observeLatency(e.inFlight, demand(), now)
      if (change !== undefined) changed(change, now)
    }
  })
  // jittered (±25%): clients polling in lockstep would always let the same one react first, and keep it ahead
  return once.pipe(
    Effect.zipRight(Effect.flatMap(Random.next, (r) => Effect.sleep(Math.round(intervalMs * (0.75 + r / 2))))),
    Effect.forever,
    Effect.interruptible
  )
}

/** One poller per endpoint with an adaptive limit, for the scope's life; a raised limit wakes waiting calls. */
export const startLoadPolling = (
  http: HttpClient.HttpClient,
  endpoints: ReadonlyArray<EndpointState>,
  intervalMs: number,
  waiters: Waiters,
  log: HealthLog
) =>
  Effect.forEach(
    endpoints.filter((e) => e.adaptive !== undefined),
    (e) =>
      Effect.forkScoped(pollLoad(http, e, intervalMs, () => waiters.size > 0, (change, now) => {
        e.limit = change.to
        log(
          "debug",
          `LLM endpoint ${e.url}: limit ${change.from.toFixed(1)} → ${change.to.toFixed(1)} (${change.reason})`
        )
        if (change.to > change.from) waiters.dispatch(now)
      })),
    { discard: true }
  )
