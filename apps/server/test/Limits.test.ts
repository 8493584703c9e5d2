import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createKey, homeWithTenant, makeHome, raw, seedCollection, settings, testServer } from "./Harness.js"

const ask = (question: string) =>
  HttpClientRequest.post("/v1/ask").pipe(HttpClientRequest.bodyUnsafeJson({ question, collection: "wiki" }))

describe("limits", () => {
  it.scopedLive("per-tenant requests per minute: 429 rate_limited with Retry-After; other tenants unaffected", () =>
    Effect.gen(function*() {
      const home = yield* makeHome
      const a = yield* createKey(home, "acme")
      const b = yield* createKey(home, "beta")
      return yield* Effect.gen(function*() {
        const statuses: Array<number> = []
        for (let i = 0; i < 4; i++) statuses.push((yield* raw(HttpClientRequest.get("/v1/collections"), a)).status)
        assert.deepStrictEqual(statuses, [200, 200, 200, 429])
        const limited = yield* raw(HttpClientRequest.get("/v1/collections"), a)
        assert.strictEqual(JSON.parse(limited.text).error.code, "rate_limited")
        assert.isAbove(Number(limited.headers["retry-after"]), 0)
        assert.strictEqual((yield* raw(HttpClientRequest.get("/v1/collections"), b)).status, 200)
      }).pipe(Effect.provide(testServer(home, settings({ limits: { requestsPerMinute: 3 } }))))
    }))

  it.scopedLive("a saturated answer pool answers 503 overloaded with Retry-After; concurrent runs per tenant are capped (429)", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      return yield* Effect.gen(function*() {
        const responses = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => i),
          (i) => raw(ask(`Who directed Big Stone Gap? (${i})`), key),
          { concurrency: "unbounded" }
        )
        const statuses = responses.map((r) => r.status)
        assert.include(statuses, 200)
        assert.include(statuses, 503)
        const overloaded = responses.find((r) => r.status === 503)!
        assert.strictEqual(JSON.parse(overloaded.text).error.code, "overloaded")
        assert.strictEqual(overloaded.headers["retry-after"], "1")

        const jsonl = Array.from(
          { length: 40 },
          (_, i) => JSON.stringify({ id: `q${i}`, question: `Who directed Big Stone Gap? ${i}` })
        ).join("\n")
        const create = HttpClientRequest.post("/v1/runs").pipe(
          HttpClientRequest.bodyUnsafeJson({ collection: "wiki", jsonl, concurrency: 1 })
        )
        assert.strictEqual((yield* raw(create, key)).status, 202)
        const second = yield* raw(create, key)
        assert.strictEqual(second.status, 429)
        assert.strictEqual(JSON.parse(second.text).error.code, "too_many_runs")
      }).pipe(
        Effect.provide(testServer(home, settings({ limits: { askConcurrency: 1, askQueue: 0, maxConcurrentRuns: 1 } })))
      )
    }))

  it.scopedLive("--no-auth: no key needed, the local tenant sees the home's collections by their plain names", () =>
    Effect.gen(function*() {
      const home = yield* makeHome
      yield* seedCollection(home, "wiki")
      return yield* Effect.gen(function*() {
        const listed = yield* raw(HttpClientRequest.get("/v1/collections"))
        assert.strictEqual(listed.status, 200)
        assert.deepStrictEqual(JSON.parse(listed.text).collections.map((c: { name: string }) => c.name), ["wiki"])
        assert.strictEqual((yield* raw(ask("Who directed Big Stone Gap?"))).status, 200)
      }).pipe(Effect.provide(testServer(home, settings({ auth: false }))))
    }))
})
