import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { collectCallUsage, LlmCache, sumCallUsage } from "@deepnote-rag/llm"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Path from "node:path"
import { start } from "../src/index.js"
import { buildClient, fast, request } from "./support.js"

describe("usage, cache, streaming, structured outputs", () => {
  it.scopedLive("usage totals equal the simulator's token counters (chat, SSE, completions lists)", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client, ledger } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      yield* Effect.forEach(["a", "b", "c", "d"], (id) => client.chat(request("init", id)), { concurrency: 4 })
      yield* Effect.forEach(["e", "f"], (id) => client.chat({ ...request("update", id), stream: true }), {
        concurrency: 2
      })
      const listed = yield* client.complete({
        role: "answer",
        questionId: "g",
        prompts: [
          "### Question\nIs water wet?",
          "### Question\nWho wrote Hamlet?\n### Note\nHamlet was written by William Shakespeare."
        ],
        sampling: samplingFor(defaultRunConfig, "answer")
      })
      assert.strictEqual(listed.texts.length, 2)
      const usage = yield* ledger.snapshot
      assert.strictEqual(usage.total.calls, 7)
      assert.strictEqual(usage.total.promptTokens, sim.metrics.promptTokens)
      assert.strictEqual(usage.total.completionTokens, sim.metrics.generationTokens)
      assert.strictEqual(usage.byRole["init"]?.calls, 4)
      assert.strictEqual(usage.byModel["deepnote-sim"]?.calls, 7)
    }))

  it.scopedLive("a call's usage reaches the collector installed around it: tokens, model and endpoint", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const [, calls] = yield* collectCallUsage(
        Effect.zip(client.chat(request("init", "a")), client.chat({ ...request("judge", "a"), stream: true }), {
          concurrent: true
        })
      )
      assert.deepStrictEqual(calls.map((c) => c.role).sort(), ["init", "judge"])
      assert.isTrue(calls.every((c) => c.endpoint === sim.url && c.model === "deepnote-sim" && c.ok))
      const sum = sumCallUsage(calls)
      assert.strictEqual(sum.promptTokens, sim.metrics.promptTokens)
      assert.strictEqual(sum.completionTokens, sim.metrics.generationTokens)
      const [, outside] = yield* collectCallUsage(Effect.void)
      assert.strictEqual(outside.length, 0)
    }))

  it.scopedLive("SSE streaming returns the same reply as a plain call", () =>
    Effect.gen(function*() {
      const sim = yield* start({})
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const plain = yield* client.chat(request("init", "s"))
      const streamed = yield* client.chat({ ...request("init", "s"), stream: true })
      assert.strictEqual(streamed.content, plain.content)
      assert.deepStrictEqual([streamed.usage.promptTokens, streamed.usage.completionTokens], [
        plain.usage.promptTokens,
        plain.usage.completionTokens
      ])
      assert.isAbove(streamed.usage.cachedPromptTokens ?? 0, 0, "the second call found the prompt in the prefix cache")
      assert.strictEqual(streamed.finishReason, "stop")
    }))

  it.scopedLive("a cache hit makes no second request (memory)", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client, ledger } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast }, LlmCache.layerTest)
      const first = yield* client.chat(request("judge", "c"))
      const second = yield* client.chat(request("judge", "c"))
      assert.strictEqual(sim.metrics.requests, 1)
      assert.isFalse(first.cached)
      assert.isTrue(second.cached)
      assert.strictEqual(second.content, first.content)
      const other = yield* client.chat({ ...request("judge", "c"), sampleIndex: 1 })
      assert.isFalse(other.cached, "another sample index is another key")
      assert.strictEqual((yield* ledger.snapshot).total.cachedCalls, 1)
    }))

  it.scopedLive("the SQLite cache survives the client (a new stack reads the same file)", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const dir = yield* Effect.flatMap(FileSystem.FileSystem, (fs) =>
        fs.makeTempDirectoryScoped({ prefix: "llm-cache-" }))
        .pipe(Effect.provide(NodeContext.layer))
      const file = Path.join(dir, "cache.sqlite")
      yield* Effect.scoped(Effect.gen(function*() {
        const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast }, LlmCache.layer({ file }))
        yield* client.chat(request("init", "persist"))
      }))
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast }, LlmCache.layer({ file }))
      const again = yield* client.chat(request("init", "persist"))
      assert.isTrue(again.cached)
      assert.strictEqual(sim.metrics.requests, 1)
    }))

  it.scopedLive("structured outputs are enforced when the server takes them", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const r = yield* client.chat({ ...request("judge"), structured: { _tag: "Choice", choices: ["True", "False"] } })
      assert.strictEqual(r.structured, "enforced")
      assert.include(["True", "False"], r.content)
    }))

  it.scopedLive("falls back without structured outputs when the server rejects them, and remembers", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", structuredOutputs: false })
      const { client, ledger } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const r = yield* client.chat({ ...request("judge"), structured: { _tag: "Choice", choices: ["True", "False"] } })
      assert.strictEqual(r.structured, "unsupported")
      assert.strictEqual(r.attempts, 3, "structured_outputs → guided → none")
      assert.strictEqual((yield* client.endpoints)[0]!.structured, "none")
      const again = yield* client.chat({
        ...request("judge", "q2"),
        structured: { _tag: "Choice", choices: ["True", "False"] }
      })
      assert.strictEqual(again.attempts, 1)
      assert.strictEqual((yield* ledger.snapshot).total.structuredFallbacks, 2)
    }))
})
