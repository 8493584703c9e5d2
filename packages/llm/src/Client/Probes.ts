import { causeCode } from "@deepnote-rag/core"
import { type HttpClient, HttpClientResponse } from "@effect/platform"
import { Clock, Effect, Predicate, Schema } from "effect"
import { ModelList } from "../Domain/Wire.js"
import type { Discovered, EndpointState } from "./Endpoint.js"
import type { makeEndpointHealth } from "./EndpointHealth.js"
import type { Waiters } from "./Waiters.js"

/** GET with a short timeout: the body text of a 2xx reply, else a failure. */
export const getText = (http: HttpClient.HttpClient, url: string, headers: Readonly<Record<string, string>> = {}) =>
  http.get(url, { headers }).pipe(
    Effect.flatMap(HttpClientResponse.filterStatusOk),
    Effect.flatMap((r) => r.text),
    Effect.timeout("5 seconds")
  )

/**
 * `/v1/models`: the model ids served, vLLM's `max_model_len`, and the simulator's `max_num_seqs` when reported; on
 * failure, why in a few words (`connection refused`, `HTTP 404`, …) for the message of a call that needed a model.
 */
export const discoverModels = (http: HttpClient.HttpClient, e: EndpointState) =>
  getText(http, `${e.url}/v1/models`, e.headers).pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(ModelList))),
    Effect.mapError(discoveryFailure),
    Effect.map((list): Discovered => {
      const seqs = list.data[0]?.max_num_seqs
      return {
        models: list.data.map((m) => m.id),
        maxModelLen: list.data[0]?.max_model_len ?? undefined,
        maxNumSeqs: typeof seqs === "number" && seqs > 0 ? seqs : undefined
      }
    })
  )

const discoveryFailure = (error: unknown): string => {
  if (Predicate.isTagged(error, "TimeoutException")) return "no reply within 5 s"
  if (Predicate.isTagged(error, "ParseError")) return "the reply is not a model list"
  if (Predicate.isTagged(error, "ResponseError") && Predicate.hasProperty(error, "response")) {
    const response: unknown = error.response
    if (Predicate.hasProperty(response, "status")) return `HTTP ${String(response.status)}`
  }
  // the system's code (`ECONNREFUSED`, `ENOTFOUND` …) along the chain of causes
  const code = causeCode(error, (code) => code.startsWith("E"))
  return code === "ECONNREFUSED" ? "connection refused" : code ?? "unreachable"
}

/**
 * A health probe: `GET /health` (vLLM), else `GET /v1/models` for OpenAI-compatible servers without one (a 404 on
 * `/health`). True when the server answered 2xx.
 */
export const probeHealth = (http: HttpClient.HttpClient, e: EndpointState): Effect.Effect<boolean> =>
  http.get(`${e.url}/health`, { headers: e.headers }).pipe(
    // the body is read (and dropped) so that the connection goes back to the pool
    Effect.flatMap((r) => Effect.as(r.text, r.status)),
    Effect.flatMap((status) =>
      status === 404
        ? getText(http, `${e.url}/v1/models`, e.headers).pipe(Effect.as(true))
        : Effect.succeed(status >= 200 && status < 300)
    ),
    Effect.timeout("5 seconds"),
    Effect.orElseSucceed(() => false)
  )

/**
 * One round of health probes: ejected endpoints whose cooldown is over (half-open), healthy ones every
 * `healthIntervalMs`. An endpoint brought back is asked `/v1/models` again (a restarted server may serve other models,
 * or another context length) and waiting calls are woken.
 */
export const healthChecks = (
  http: HttpClient.HttpClient,
  endpoints: ReadonlyArray<EndpointState>,
  health: ReturnType<typeof makeEndpointHealth>,
  waiters: Waiters
) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.forEach(endpoints, (e) =>
      Effect.gen(function*() {
        if (!health.probeDue(e, now)) return
        const ok = yield* probeHealth(http, e)
        if (!health.probed(e, ok, yield* Clock.currentTimeMillis)) return
        yield* discoverModels(http, e).pipe(
          Effect.tap((found) => Effect.sync(() => health.discovered(e, found))),
          Effect.ignore
        )
        waiters.dispatch(yield* Clock.currentTimeMillis)
      }), { concurrency: "unbounded", discard: true }))
