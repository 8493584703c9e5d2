import { seededRandom } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { start } from "../src/index.js"
import { buildClient, deadUrl, fast, request, waitFor } from "./support.js"

const ids = (n: number) => Array.from({ length: n }, (_, i) => `q${i}`)

describe("endpoint pool", () => {
  it.scopedLive("ejects a dead endpoint and sends its calls elsewhere", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const dead = yield* deadUrl
      const { client } = yield* buildClient({
        endpoints: [{ url: dead }, { url: sim.url }],
        ejectAfter: 2,
        cooldownMs: 60_000,
        ...{ backoffBaseMs: 5, backoffMaxMs: 20 }
      })
      const results = yield* Effect.forEach(ids(30), (id) => client.chat(request("init", id)), { concurrency: 4 })
      assert.strictEqual(results.length, 30)
      assert.isTrue(results.every((r) => r.endpoint === sim.url))
      const status = yield* client.endpoints
      assert.strictEqual(status[0]!.health, "ejected")
      assert.strictEqual(status[0]!.ejections, 1)
      assert.strictEqual(status[1]!.health, "healthy")
      assert.strictEqual(sim.metrics.success, 30)
    }))

  it.scopedLive("brings an ejected endpoint back after a half-open /health probe", () =>
    Effect.gen(function*() {
      const a = yield* start({ content: "lite" })
      const b = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: a.url }, { url: b.url }], ejectAfter: 1, ...fast })
      a.faults.down = true
      yield* Effect.forEach(ids(10), (id) => client.chat(request("init", id)), { concurrency: 2 })
      // its 503s make it overloaded (never ejected for those); its failing /health probes eject it
      yield* waitFor(client.endpoints, (s) => s[0]!.health === "ejected")
      assert.strictEqual((yield* client.health).state, "degraded")
      a.faults.down = false
      yield* waitFor(client.endpoints, (s) => s[0]!.condition === "up")
      assert.strictEqual((yield* client.health).state, "ok")
      const before = a.metrics.success
      yield* Effect.forEach(ids(20), (id) => client.chat(request("init", `later-${id}`)), { concurrency: 2 })
      assert.isAbove(a.metrics.success, before, "traffic returns to the recovered endpoint")
    }))

  it.scopedLive("never exceeds the global in-flight limit", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxNumSeqs: 64 })
      const { client } = yield* buildClient({
        endpoints: [{ url: sim.url }],
        globalInFlight: 5,
        perEndpointConcurrency: 16,
        ...fast
      })
      yield* Effect.forEach(ids(40), (id) => client.chat(request("update", id)), { concurrency: "unbounded" })
      assert.isAtMost(sim.metrics.maxInSystem, 5)
      assert.isAtLeast(sim.metrics.maxInSystem, 3)
      assert.strictEqual(sim.metrics.success, 40)
    }))

  it.scopedLive("never exceeds each endpoint's own limit (url#N), spreading load over both", () =>
    Effect.gen(function*() {
      const a = yield* start({ content: "lite" })
      const b = yield* start({ content: "lite" })
      const { client } = yield* buildClient({
        endpoints: [{ url: a.url, maxNumSeqs: 3 }, { url: b.url, maxNumSeqs: 2 }],
        ...fast
      })
      yield* Effect.forEach(ids(40), (id) => client.chat(request("plan", id)), { concurrency: "unbounded" })
      assert.isAtMost(a.metrics.maxInSystem, 3)
      assert.isAtMost(b.metrics.maxInSystem, 2)
      assert.isAbove(a.metrics.success, 0)
      assert.isAbove(b.metrics.success, 0)
      assert.strictEqual(a.metrics.success + b.metrics.success, 40)
    }))

  it.scopedLive("without adaptive limits, sizes per-endpoint concurrency from the server's max_num_seqs", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxNumSeqs: 7 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], adaptiveConcurrency: false, ...fast })
      assert.strictEqual((yield* client.endpoints)[0]!.limit, 9, "7 plus a queue headroom of 2")
      yield* Effect.forEach(ids(30), (id) => client.chat(request("init", id)), { concurrency: "unbounded" })
      assert.isAtMost(sim.metrics.maxInSystem, 9)
      assert.strictEqual(sim.metrics.maxRunning, 7)
    }))

  it.scopedLive("a server reporting a batch beyond the global in-flight limit: its limit stays within that limit", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxNumSeqs: 40 })
      const { client } = yield* buildClient({
        endpoints: [{ url: sim.url }],
        adaptiveConcurrency: false,
        globalInFlight: 16,
        ...fast
      })
      assert.strictEqual((yield* client.endpoints)[0]!.limit, 16, "40 plus headroom, bounded by the 16 in flight")
    }))

  it.scopedLive("keeps a question on one endpoint (sticky routing)", () =>
    Effect.gen(function*() {
      const a = yield* start({ content: "lite" })
      const b = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: a.url }, { url: b.url }], ...fast })
      // 16 questions: rendezvous hashing over two servers (random ports) puts all of them on one with p = 2^-15
      for (const id of ids(16)) {
        const results = yield* Effect.forEach([1, 2, 3, 4], () => client.chat(request("judge", id)))
        // A retry may legitimately move to the other server (it avoids the one that just failed); first attempts stay.
        const used = results.filter((r) => r.attempts === 1).map((r) => r.endpoint)
        assert.strictEqual(
          new Set(used).size,
          1,
          `question ${id} stayed on one server: ${JSON.stringify(results.map((r) => [r.endpoint, r.attempts]))}`
        )
      }
      assert.isAbove(a.metrics.success, 0)
      assert.isAbove(b.metrics.success, 0)
    }))

  it.scopedLive("sticky routing keeps a question's prompt prefix warm: calls after the first find the prefix cached (the comparison with least-loaded routing is in benchmarks/llm)", () =>
    Effect.gen(function*() {
      // 16 questions at once, 4 calls each in sequence, over two servers. Each call repeats the question's long note
      // (its own prefix) and adds new passages, as a DeepNote update does. Hit rates come from the servers' counters.
      const note = (q: number) =>
        Array.from({ length: 40 }, (_, i) => `Fact ${i} about subject ${q}: item ${q * 100 + i} holds.`).join(" ")
      const messages = (q: number, call: number) => [
        { role: "system" as const, content: "Update the note with what the passages add." },
        {
          role: "user" as const,
          content: `### Question\nWhat about subject ${q}?\n\n### Note\n${
            note(q)
          }\n\n### Passages\n[1] Title: Call ${call}\nNew passage ${call} for ${q}.`
        }
      ]
      const hitRate = (sticky: boolean) =>
        Effect.gen(function*() {
          // replies of varying length (as a model's are)
          const a = yield* start({ content: "lite", stepBaseMs: 1, reasoningMeanTokens: 30, faultSeed: 3 })
          const b = yield* start({ content: "lite", stepBaseMs: 1, reasoningMeanTokens: 30, faultSeed: 4 })
          const { client, ledger } = yield* buildClient({ endpoints: [{ url: a.url }, { url: b.url }], ...fast })
          const random = seededRandom(7)
          // between two calls a question retrieves (a few ms of other work), so the questions drift apart
          yield* Effect.forEach(ids(16).map((_, q) => q), (q) =>
            Effect.forEach([0, 1, 2, 3], (call) =>
              Effect.zipRight(
                Effect.sleep(Math.floor(random() * 15)),
                client.chat({
                  ...request("update"),
                  questionId: sticky ? `q${q}` : undefined,
                  messages: messages(q, call)
                })
              )), { concurrency: "unbounded" })
          const queried = a.metrics.prefixCacheQueries + b.metrics.prefixCacheQueries
          const hits = a.metrics.prefixCacheHits + b.metrics.prefixCacheHits
          assert.strictEqual(
            (yield* ledger.snapshot).total.cachedPromptTokens,
            hits,
            "the client counts the cached tokens the servers report"
          )
          return hits / queried
        })
      const sticky = yield* hitRate(true)
      const leastLoaded = yield* hitRate(false)
      yield* Effect.log(`prefix-cache hit rate: sticky ${sticky.toFixed(3)}, least-loaded ${leastLoaded.toFixed(3)}`)
      assert.isAbove(sticky, 0.6, "calls 2–4 of each question find its note cached")
    }))

  it.scopedLive("applies the requests-per-second limit", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], rps: 10, ...fast })
      const began = Date.now()
      yield* Effect.forEach(ids(20), (id) => client.chat(request("init", id)), { concurrency: "unbounded" })
      assert.isAtLeast(Date.now() - began, 900)
    }))

  it.scopedLive("a call waiting for a slot can be interrupted at once, and the held slot is released", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({
        endpoints: [{ url: sim.url, maxNumSeqs: 1 }],
        attemptTimeoutMs: 1500,
        maxAttempts: 1,
        ...fast
      })
      sim.faults.failNext(["stall"])
      const holder = yield* Effect.fork(client.chat(request("init", "a")))
      yield* Effect.sleep("100 millis")
      const began = Date.now()
      const waited = yield* client.chat(request("init", "b")).pipe(Effect.timeout("200 millis"), Effect.option)
      assert.isTrue(waited._tag === "None")
      assert.isBelow(Date.now() - began, 800, "interrupted while queued, not after the slot freed")
      yield* Effect.flip(holder.await.pipe(Effect.flatten))
      assert.strictEqual((yield* client.endpoints)[0]!.inFlight, 0)
      assert.strictEqual((yield* client.chat(request("init", "c"))).attempts, 1)
    }))
})
