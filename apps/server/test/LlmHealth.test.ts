import { defaultRunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { deadUrl, start } from "@deepnote-rag/llm-sim"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { serverLayer } from "../src/index.js"
import { homeWithTenant, loopbackTest, raw, settings } from "./Harness.js"

/** Quick recovery and a short interactive outage tolerance, so that a test sees the 503 within seconds. */
const quick = {
  backoffBaseMs: 20,
  backoffMaxMs: 200,
  cooldownMs: 100,
  cooldownMaxMs: 300,
  healthIntervalMs: 100,
  interactiveOutageToleranceMs: 1_500,
  maxAttempts: 2,
  cache: false
} as const

const readyz = Effect.flatMap(HttpClient.HttpClient, (client) =>
  client.get("/readyz").pipe(
    Effect.flatMap((r) => Effect.map(r.text, (text) => ({ status: r.status, text, headers: r.headers })))
  ))

/** Polls `/readyz` until it answers `status` (the pool notices an outage at its next health probe). */
const readyzUntil = (status: number) =>
  readyz.pipe(
    Effect.filterOrFail((r) => r.status === status, () => "not yet" as const),
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => `/readyz never answered ${status}` })
  )

/** The HTTP app on the LLM engine with one LLM server at `url` (the test's loopback client is provided). */
const llmServer = (home: string, url: string) =>
  serverLayer({
    home,
    settings: settings({ defaults: { ...defaultRunConfig, engine: "llm" } }),
    llmSettings: LlmSettings.layer({ endpoints: [{ url }], ...quick })
  }).pipe(Layer.provideMerge(loopbackTest))

const ask = (key: string) =>
  raw(
    HttpClientRequest.post("/v1/ask").pipe(
      HttpClientRequest.bodyUnsafeJson({
        question: "Who directed Big Stone Gap?",
        collection: "wiki",
        config: { maxStep: 1, maxFailure: 1 }
      })
    ),
    key
  )

describe("the LLM servers' health over HTTP (/readyz, /v1/ask answering 502/503)", () => {
  it.scopedLive(
    "every endpoint down: /readyz 503 naming it, /v1/ask 503 with Retry-After; back up: ready again",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ stepBaseMs: 1, content: "lite" })
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        const server = llmServer(home, `${sim.url}/v1`)
        return yield* Effect.gen(function*() {
          const ready = yield* readyzUntil(200)
          assert.include(ready.text, "\"llm\":{\"state\":\"ok\"")

          yield* Effect.promise(() => fetch(`${sim.url}/sim/down`, { method: "POST" }))
          const down = yield* readyzUntil(503)
          const body = JSON.parse(down.text) as { error: { code: string; message: string } }
          assert.strictEqual(body.error.code, "llm_unavailable")
          assert.include(body.error.message, sim.url, "names the endpoint that is down")

          const answer = yield* ask(key)
          assert.strictEqual(answer.status, 503, answer.text)
          assert.strictEqual(answer.headers["retry-after"], "10")
          const error = (JSON.parse(answer.text) as { error: { code: string; message: string } }).error
          assert.strictEqual(error.code, "llm_unavailable")
          assert.notInclude(error.message, "\n", "one line")

          yield* Effect.promise(() => fetch(`${sim.url}/sim/up`, { method: "POST" }))
          yield* readyzUntil(200)
          assert.strictEqual((yield* ask(key)).status, 200)
        }).pipe(Effect.provide(server))
      }),
    60_000
  )

  it.scopedLive(
    "no LLM server listening at all (connection refused): /readyz 503 and /v1/ask 503",
    () =>
      Effect.gen(function*() {
        const dead = yield* deadUrl
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        const server = llmServer(home, `${dead}/v1`)
        return yield* Effect.gen(function*() {
          const down = yield* readyzUntil(503)
          assert.include(down.text, "llm_unavailable")
          const answer = yield* ask(key)
          assert.strictEqual(answer.status, 503, answer.text)
          assert.isDefined(answer.headers["retry-after"])
        }).pipe(Effect.provide(server))
      }),
    60_000
  )

  it.scopedLive(
    "an LLM server that answers badly: /v1/ask 502 llm_bad_gateway, /readyz still ready",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ stepBaseMs: 1, content: "lite", faultRate: 1, faults: ["malformed"] })
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        const server = llmServer(home, `${sim.url}/v1`)
        return yield* Effect.gen(function*() {
          const answer = yield* ask(key)
          assert.strictEqual(answer.status, 502, answer.text)
          const error = (JSON.parse(answer.text) as { error: { code: string; message: string } }).error
          assert.strictEqual(error.code, "llm_bad_gateway")
          assert.strictEqual((yield* readyz).status, 200)
        }).pipe(Effect.provide(server))
      }),
    60_000
  )
})
