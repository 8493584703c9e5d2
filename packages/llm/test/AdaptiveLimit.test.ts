import { AdaptiveLimit, parseServerLoad } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

const load = (running: number, waiting: number, kvUsage = 0.1, preemptions = 0) => ({
  running,
  waiting,
  kvUsage,
  preemptions
})

describe("adaptive concurrency", () => {
  it.effect("reads vLLM's /metrics: running and waiting summed over engines, the largest KV use", () =>
    Effect.sync(() => {
      const text = [
        "# HELP vllm:num_requests_running Number of requests in model execution batches.",
        "# TYPE vllm:num_requests_running gauge",
        "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 12.0",
        "vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 3.0",
        "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 4.0",
        "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.5",
        "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"m\"} 0.75",
        "vllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} 7",
        "vllm:num_requests_running_other 99"
      ].join("\n")
      assert.deepStrictEqual(parseServerLoad(text), { running: 15, waiting: 4, kvUsage: 0.75, preemptions: 7 })
      assert.isUndefined(parseServerLoad("# nothing of vLLM\nup 1\n"))
    }))

  it.effect("grows by half the free batch slots (within the KV cache) while there is demand and no queue, else by one", () =>
    Effect.sync(() => {
      const limit = new AdaptiveLimit(8, 1000, 250)
      // 56 free slots, but 10% of the KV cache for 8 sequences leaves room for 44 below 65%: half of that
      assert.strictEqual(limit.observe(load(8, 0), 8, true, 64, 0)?.to, 30)
      assert.isUndefined(limit.observe(load(8, 0), 4, true, 64, 250), "not using its limit: no growth")
      assert.isUndefined(limit.observe(load(36, 0), 36, false, 64, 500), "no demand: no growth")
      assert.strictEqual(limit.observe(load(64, 2), 66, true, 64, 750)?.to, 31, "a short queue: one more")
    }))

  it.effect("counts its calls the server does not show yet as taking batch slots and KV cache", () =>
    Effect.sync(() => {
      // 30 in flight, the server shows 8 (22 still on the wire or in its API server): 34 slots free, not 56; room
      // for 44 sequences below 65% of the KV cache, 22 of them already ours: half of 22
      const late = new AdaptiveLimit(30, 1000, 250)
      assert.strictEqual(late.observe(load(8, 0), 30, true, 64, 0)?.to, 41)
      // a starved client's reading: its 64 calls not yet seen, the batch is theirs already — one more, not 30
      const starved = new AdaptiveLimit(64, 1000, 250)
      assert.strictEqual(starved.observe(load(4, 0, 0.05), 64, true, 64, 0)?.to, 65)
    }))

  it.effect("cuts by its share of a queue past 1/16 of the batch, once per settling; never below 1", () =>
    Effect.sync(() => {
      const limit = new AdaptiveLimit(40, 1000, 250)
      const cut = limit.observe(load(64, 20), 40, true, 64, 0)!
      // share 40/84 of an excess of 16
      assert.closeTo(cut.to, 40 - (16 * 40) / 84, 1e-9)
      assert.isUndefined(limit.observe(load(64, 20), 40, true, 64, 250), "waits for in-flight calls to drain")
      const tiny = new AdaptiveLimit(1, 1000, 250)
      assert.strictEqual(tiny.observe(load(64, 100), 1, true, 64, 0)?.to, 1)
    }))

  it.effect("a queue while batch slots are free means the KV cache is the limit: no queue then", () =>
    Effect.sync(() => {
      const limit = new AdaptiveLimit(20, 1000, 250)
      assert.include(limit.observe(load(30, 1, 0.7), 20, true, 64, 0)?.reason, "KV-bound")
      const kv = new AdaptiveLimit(20, 1000, 250)
      assert.strictEqual(kv.observe(load(30, 0, 0.95), 20, true, 64, 0)?.reason, "KV cache nearly full")
      const pre = new AdaptiveLimit(20, 1000, 250)
      assert.isUndefined(pre.observe(load(30, 0, 0.5, 3), 20, false, 64, 0))
      assert.closeTo(pre.observe(load(30, 0, 0.5, 4), 20, false, 64, 250)!.to, 14, 1e-9)
    }))

  it.effect("overload answers cut once per poll interval; without metrics, the latency per token steers", () =>
    Effect.sync(() => {
      const limit = new AdaptiveLimit(40, 1000, 250)
      assert.strictEqual(limit.overload(0)?.to, 36)
      assert.isUndefined(limit.overload(100))
      assert.closeTo(limit.overload(300)!.to, 32.4, 1e-9)
      const blind = new AdaptiveLimit(10, 1000, 250)
      for (let i = 0; i < 20; i++) blind.latency(100, 10)
      assert.strictEqual(blind.observeLatency(10, true, 0)?.to, 11, "flat latency: grow by one")
      for (let i = 0; i < 40; i++) blind.latency(500, 10)
      assert.strictEqual(blind.observeLatency(11, true, 5000)?.reason, "latency per token doubled")
    }))
})
