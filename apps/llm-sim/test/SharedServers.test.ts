import { LlmCallPolicy } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { captureProxy, start } from "../src/index.js"
import { buildClient, fast, request, waitFor } from "./support.js"

const ids = (n: number, prefix = "q") => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const withModel = (model: string, id: string) => {
  const r = request("judge", id)
  return { ...r, sampling: { ...r.sampling, model } }
}

describe("a good citizen on shared vLLM servers", () => {
  it.scopedLive("routes each call to the endpoints serving its model; a model none serves is one clear error", () =>
    Effect.gen(function*() {
      const small = yield* start({ content: "lite", model: "small", maxModelLen: 4096 })
      const both = yield* start({ content: "lite", model: ["small", "big"], maxModelLen: 8192 })
      const { client } = yield* buildClient({ endpoints: [{ url: small.url }, { url: both.url }], ...fast })
      const results = yield* Effect.forEach(ids(20), (id) => client.chat(withModel("big", id)), { concurrency: 8 })
      assert.isTrue(results.every((r) => r.endpoint === both.url && r.model === "big"))
      assert.strictEqual(small.metrics.requests, 0, "no call for big went to the server without it")
      const placements = yield* client.checkModels([undefined, "big"])
      assert.deepStrictEqual(placements.map((p) => [p.requested, p.model, p.discovered]), [
        [undefined, "small", true],
        ["big", "big", false]
      ])
      assert.deepStrictEqual(placements[0]!.endpoints, [{ url: small.url, maxModelLen: 4096 }, {
        url: both.url,
        maxModelLen: 8192
      }])
      assert.deepStrictEqual(placements[1]!.endpoints, [{ url: both.url, maxModelLen: 8192 }])
      const error = yield* Effect.flip(client.checkModels(["huge", "big"]))
      assert.strictEqual(error.reason, "permanent")
      assert.include(error.message, `no LLM endpoint serves the model "huge"`)
      assert.include(error.message, `${small.url} serves "small"`)
      assert.include(error.message, `${both.url} serves "small", "big"`)
      const call = yield* Effect.flip(client.chat(withModel("huge", "x")))
      assert.strictEqual(call.last._tag, "LlmModelNotServed")
      assert.strictEqual(small.metrics.requests + both.metrics.requests, 20)
    }))

  it.scopedLive("sends vLLM's priority per work class and a fairness key per run or tenant", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", schedulingPolicy: "priority" })
      const proxy = yield* captureProxy(sim.url)
      const { client } = yield* buildClient({ endpoints: [{ url: proxy.url }], ...fast })
      yield* client.chat({ ...request("init", "a"), runId: "run-1" })
      yield* client.chat(request("answer", "b")).pipe(LlmCallPolicy.interactive)
      yield* client.chat(request("plan", "c")).pipe(LlmCallPolicy.locally({ priority: -3, fairnessKey: "tenant-a" }))
      yield* client.complete({ ...request("answer", "d"), prompts: ["### Question\nWho?"], runId: "run-2" })
      const sent = proxy.completions()
      assert.deepStrictEqual(sent.map((s) => s.body?.["priority"]), [10, 0, -3, 10])
      assert.deepStrictEqual(sent.map((s) => s.headers["x-deepnote-fairness-key"]), [
        "run-1",
        undefined,
        "tenant-a",
        "run-2"
      ])
    }))

  it.scopedLive("an interactive call overtakes a batch backlog waiting in the client and on the server", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", schedulingPolicy: "priority", maxNumSeqs: 2, stepBaseMs: 5 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url, maxNumSeqs: 4 }], ...fast })
      const finished: Array<string> = []
      const batch = yield* Effect.fork(
        Effect.forEach(
          ids(40, "b"),
          (id) => client.chat(request("update", id)).pipe(Effect.tap(() => Effect.sync(() => finished.push(id)))),
          {
            concurrency: "unbounded"
          }
        )
      )
      yield* waitFor(Effect.sync(() => finished.length), (n) => n >= 2)
      yield* client.chat(request("answer", "i")).pipe(LlmCallPolicy.interactive)
      const batchDoneBefore = finished.length
      yield* Fiber.join(batch)
      assert.isBelow(batchDoneBefore, 20, `the interactive call finished after ${batchDoneBefore} of 40 batch calls`)
    }))

  it.scopedLive(
    "the adaptive limit grows on a free server until its batch is full, with a short queue",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ content: "lite", maxNumSeqs: 16, stepBaseMs: 5, reasoningMeanTokens: 40 })
        const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], metricsIntervalMs: 50, ...fast })
        assert.strictEqual((yield* client.endpoints)[0]!.limit, 8, "starts low")
        const calls = yield* Effect.fork(
          Effect.forEach(ids(400), (id) => client.chat(request("update", id)), { concurrency: "unbounded" })
        )
        const grown = yield* waitFor(client.endpoints, (s) => s[0]!.limit >= 16)
        assert.isAtLeast(grown[0]!.limit, 16)
        yield* Fiber.join(calls)
        assert.strictEqual(sim.metrics.maxRunning, 16, "the batch was filled")
        assert.isAtMost(sim.metrics.maxInSystem, 16 + 8, "never far beyond it: the queue stays short")
      }),
    60_000
  )

  it.scopedLive("the adaptive limit shrinks when another client fills the server", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxNumSeqs: 8, stepBaseMs: 5, backgroundLoad: 16 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], metricsIntervalMs: 50, ...fast })
      const calls = yield* Effect.fork(
        Effect.forEach(ids(300), (id) => client.chat(request("judge", id)), { concurrency: "unbounded" })
      )
      const shrunk = yield* waitFor(client.endpoints, (s) => s[0]!.limit <= 3)
      assert.isAtMost(shrunk[0]!.limit, 3)
      yield* Fiber.interrupt(calls)
    }), 60_000)

  it.scopedLive(
    "the adaptive limit stays below what the KV cache holds: few or no pre-emptions",
    () =>
      Effect.gen(function*() {
        // 32 sequences of ~100 prompt + ~120 generated tokens need ~7000 tokens of KV cache; it holds 4096
        const sim = yield* start({
          content: "lite",
          kvCapacityTokens: 4096,
          maxModelLen: 2048,
          maxNumSeqs: 32,
          stepBaseMs: 5,
          reasoningMeanTokens: 120
        })
        const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], metricsIntervalMs: 50, ...fast })
        yield* Effect.forEach(ids(240), (id) => client.chat(request("update", id, { maxTokens: 600 })), {
          concurrency: "unbounded"
        })
        const perSequence = (sim.metrics.promptTokens + sim.metrics.generationTokens) / 240
        assert.isAbove(perSequence * 32, 4096 * 1.2, "a full batch of these would not fit in the KV cache")
        // the over-growth this guards against gave 76; a client starved of CPU polls /metrics late and may overshoot
        // by a little (6 beside four busy loops at load 10; at most 5 in quiet runs)
        assert.isAtMost(sim.metrics.preemptions, 15)
      }),
    120_000
  )
})
