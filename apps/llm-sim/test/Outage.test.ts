import { LlmCallPolicy, type LlmHealth } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { start } from "../src/index.js"
import { post } from "./Http.js"
import { spawnSim } from "./SimProcess.js"
import { buildClient, deadUrl, request, waitFor } from "./support.js"

/** Quick recovery settings: probes every 100–400 ms, short backoffs. */
const quick = {
  backoffBaseMs: 20,
  backoffMaxMs: 200,
  cooldownMs: 100,
  cooldownMaxMs: 400,
  healthIntervalMs: 100
} as const

const ids = (n: number, prefix = "q") => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

describe("riding out LLM server outages", () => {
  it.scopedLive(
    "the server down for ~3 s (/sim/down): waiting calls continue after /sim/up",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ content: "lite" })
        // one counted attempt per call: only because outage attempts do not count can the calls ride it out
        const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], maxAttempts: 1, ...quick })
        const seen: Array<LlmHealth["state"]> = []
        yield* client.healthChanges.pipe(
          Stream.runForEach((h) => Effect.sync(() => seen.push(h.state))),
          Effect.forkScoped
        )
        yield* post(`${sim.url}/sim/down`, {})
        const calls = yield* Effect.fork(
          Effect.forEach(ids(12), (id) => client.chat(request("init", id)), { concurrency: "unbounded" })
        )
        yield* waitFor(client.health, (h) => h.state === "outage")
        const downAt = Date.now()
        yield* Effect.sleep("3 seconds")
        assert.isNull(calls.unsafePoll(), "still waiting, not failed")
        yield* post(`${sim.url}/sim/up`, {})
        const results = yield* Fiber.join(calls)
        assert.strictEqual(results.length, 12)
        assert.isAtLeast(Date.now() - downAt, 3000)
        assert.isAtLeast(sim.metrics.faults["503"] ?? 0, 12, "every call met the outage")
        assert.isTrue(results.every((r) => r.attempts >= 2))
        yield* waitFor(client.health, (h) => h.state === "ok")
        assert.includeMembers(seen, ["ok", "outage"])
      }),
    30_000
  )

  it.scopedLive(
    "the simulator process stopped and restarted on the same port: calls complete",
    () =>
      Effect.gen(function*() {
        const first = yield* spawnSim(["--content", "lite", "--port", "0"])
        const { client } = yield* buildClient({ endpoints: [{ url: first.url }], model: "deepnote-sim", ...quick })
        assert.strictEqual((yield* client.chat(request("init", "before"))).attempts, 1)
        yield* first.stop
        const calls = yield* Effect.fork(
          Effect.forEach(ids(8), (id) => client.chat(request("plan", id)), { concurrency: "unbounded" })
        )
        yield* waitFor(client.health, (h) => h.state === "outage")
        assert.strictEqual((yield* client.endpoints)[0]!.condition, "down")
        yield* spawnSim(["--content", "lite", "--port", String(first.port)])
        const results = yield* Fiber.join(calls)
        assert.strictEqual(results.length, 8)
        yield* waitFor(client.health, (h) => h.state === "ok")
      }),
    60_000
  )

  it.scopedLive("30% of answers 429 or 529 with Retry-After: every call completes", () =>
    Effect.gen(function*() {
      const sim = yield* start({
        content: "lite",
        faultRate: 0.3,
        faults: ["429", "529"],
        faultSeed: 11,
        retryAfterSeconds: 0.05
      })
      const { client, ledger } = yield* buildClient({ endpoints: [{ url: sim.url }], maxAttempts: 2, ...quick })
      const results = yield* Effect.forEach(ids(120), (id) => client.chat(request("judge", id)), { concurrency: 16 })
      assert.strictEqual(results.length, 120)
      const faults = (sim.metrics.faults["429"] ?? 0) + (sim.metrics.faults["529"] ?? 0)
      assert.isAbove(faults, 20)
      const usage = yield* ledger.snapshot
      assert.strictEqual(usage.total.failedCalls, 0)
      assert.strictEqual(usage.total.attempts, 120 + faults, "one retry per overload answer, nothing more")
      assert.strictEqual((yield* client.endpoints)[0]!.ejections, 0, "overload answers never eject")
    }), 30_000)

  it.scopedLive("permanent errors (400, 404) fail at once, even while the pool is fine", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxModelLen: 2048 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...quick })
      const tooLong = yield* Effect.flip(client.chat(request("init", "q1", { maxTokens: 4096 })))
      assert.deepStrictEqual([tooLong.reason, tooLong.status, tooLong.attempts], ["permanent", 400, 1])
      const unknown = yield* Effect.flip(client.chat({
        ...request("init", "q2"),
        sampling: { ...request("init").sampling, model: "nope" }
      }))
      assert.strictEqual(unknown.reason, "permanent")
      assert.strictEqual(unknown.attempts, 1)
      assert.include(unknown.message, `no LLM endpoint serves the model "nope"`)
      assert.include(unknown.message, `${sim.url} serves "deepnote-sim"`)
      assert.strictEqual(sim.metrics.requests, 1, "the unknown model never reached the server")
    }))

  it.scopedLive(
    "the outage tolerance elapsed: a clear error naming the endpoints and how long the call waited",
    () =>
      Effect.gen(function*() {
        const dead = yield* deadUrl
        const { client } = yield* buildClient({
          endpoints: [{ url: dead }],
          model: "m",
          ejectAfter: 1,
          ...quick,
          interactiveOutageToleranceMs: 800
        })
        const began = Date.now()
        const error = yield* Effect.flip(client.chat(request("answer")).pipe(LlmCallPolicy.interactive))
        const waited = Date.now() - began
        assert.strictEqual(error.reason, "outage")
        assert.isTrue(error.transient)
        assert.include(error.message, dead)
        assert.include(error.message, "down")
        assert.match(error.message, /gave up after waiting 0\.[89]|gave up after waiting 1\.\d s/)
        assert.include(error.message, "outage tolerance 0.8 s, interactive work")
        assert.isAtLeast(waited, 700)
        assert.isBelow(waited, 5000)
        const health = yield* client.health
        assert.strictEqual(health.state, "outage")
        assert.strictEqual(health.endpoints[0]!.condition, "down")
        // batch work in the same engine waits longer (its own tolerance), and says so
        const batch = yield* Effect.flip(
          client.chat(request("init")).pipe(LlmCallPolicy.locally({ workClass: "batch", outageToleranceMs: 300 }))
        )
        assert.include(batch.message, "outage tolerance 0.3 s, batch work")
      }),
    20_000
  )

  it.scopedLive("the health stream reports each change of state once", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...quick })
      const states = yield* client.healthChanges.pipe(
        Stream.map((h) => h.state),
        Stream.changes,
        Stream.take(3),
        Stream.runCollect,
        Effect.fork
      )
      yield* waitFor(client.health, (h) => h.state === "ok")
      sim.faults.down = true
      yield* waitFor(client.health, (h) => h.state !== "ok")
      sim.faults.down = false
      yield* waitFor(client.health, (h) => h.state === "ok")
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(states))
      assert.strictEqual(seen[0], "ok")
      assert.strictEqual(seen[2], "ok")
    }), 20_000)
})
