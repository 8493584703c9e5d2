import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { httpClientLayer } from "@deepnote-rag/llm"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseRoleMeans } from "../src/Cli/SimInput.js"
import { start } from "../src/index.js"
import { buildClient, fast, request } from "./support.js"

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.flatMap(
    HttpClient.HttpClient,
    (http) =>
      http.execute(
        HttpClientRequest.post(url).pipe(HttpClientRequest.setHeaders(headers), HttpClientRequest.bodyUnsafeJson(body))
      ).pipe(
        Effect.flatMap((r) => Effect.map(r.text, (text) => ({ status: r.status, text })))
      )
  ).pipe(Effect.provide(httpClientLayer({ connections: 4 })))

describe("the simulator", () => {
  it.scopedLive("batches at most max_num_seqs and queues the rest", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxNumSeqs: 4 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], perEndpointConcurrency: 20, ...fast })
      yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => `q${i}`), (id) => client.chat(request("init", id)), {
        concurrency: "unbounded"
      })
      assert.strictEqual(sim.metrics.maxRunning, 4)
      assert.isAbove(sim.metrics.maxInSystem, 4, "others waited")
      assert.strictEqual(sim.metrics.success, 20)
      assert.isAbove(sim.metrics.occupancy().occupancy, 0.5)
    }))

  it.scopedLive("serves /metrics with vLLM's names", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      yield* client.chat(request("init"))
      const text = yield* Effect.flatMap(HttpClient.HttpClient, (http) =>
        Effect.flatMap(http.get(`${sim.url}/metrics`), (r) => r.text)).pipe(
          Effect.provide(httpClientLayer({ connections: 2 }))
        )
      for (
        const name of [
          "vllm:num_requests_running",
          "vllm:num_requests_waiting",
          "vllm:kv_cache_usage_perc",
          "vllm:prompt_tokens_total",
          "vllm:generation_tokens_total",
          "vllm:time_to_first_token_seconds_bucket",
          "vllm:inter_token_latency_seconds_count",
          "vllm:request_success_total",
          "sim:max_num_requests_running"
        ]
      ) {
        assert.include(text, name)
      }
      assert.match(text, /vllm:request_success_total\{model_name="deepnote-sim"\} 1/)
    }))

  it.scopedLive("answers /v1/completions prompt lists in prompt order", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const result = yield* client.complete({
        role: "init",
        prompts: [
          "Note.\n### Question\nA?\n### Passages\n[1] Title: A\nAlpha is first.",
          "Note.\n### Question\nB?\n### Passages\n[1] Title: B\nBeta is second."
        ],
        sampling: samplingFor(defaultRunConfig, "init")
      })
      assert.deepStrictEqual(result.texts, ["Alpha is first.", "Beta is second."])
    }))

  it.scopedLive("rejects a wrong API key with 401 and bad JSON with 400", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", apiKey: "secret" })
      const denied = yield* post(`${sim.url}/v1/chat/completions`, { messages: [{ role: "user", content: "hi" }] })
      assert.strictEqual(denied.status, 401)
      const bad = yield* post(`${sim.url}/v1/chat/completions`, { messages: [] }, { authorization: "Bearer secret" })
      assert.strictEqual(bad.status, 400)
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], apiKey: "secret", ...fast })
      assert.strictEqual((yield* client.chat(request("init"))).attempts, 1)
    }))

  it.scopedLive("injects faults by rate and seed", () =>
    Effect.gen(function*() {
      const sim = yield* start({
        content: "lite",
        faultRate: 0.3,
        faultSeed: 7,
        faults: ["429", "503"],
        retryAfterSeconds: 0
      })
      const { client, ledger } = yield* buildClient({ endpoints: [{ url: sim.url }], maxAttempts: 10, ...fast })
      yield* Effect.forEach(Array.from({ length: 30 }, (_, i) => `q${i}`), (id) => client.chat(request("init", id)), {
        concurrency: 8
      })
      const faults = (sim.metrics.faults["429"] ?? 0) + (sim.metrics.faults["503"] ?? 0)
      assert.isAbove(faults, 3)
      const usage = yield* ledger.snapshot
      assert.strictEqual(usage.total.attempts, 30 + faults)
      assert.strictEqual(usage.total.failedCalls, 0)
    }))

  it.scopedLive("a reasoning part costs generation steps and usage but leaves the reply alone", () =>
    Effect.gen(function*() {
      const plain = yield* start({ content: "lite" })
      const thinking = yield* start({ content: "lite", reasoningMeanTokens: 40, faultSeed: 3 })
      const a = yield* buildClient({ endpoints: [{ url: plain.url }], ...fast })
      const b = yield* buildClient({ endpoints: [{ url: thinking.url }], ...fast })
      const r1 = yield* a.client.chat(request("init"))
      const r2 = yield* b.client.chat(request("init"))
      const r3 = yield* b.client.chat({ ...request("init"), stream: true })
      assert.strictEqual(r2.content, r1.content)
      assert.strictEqual(r3.content, r1.content)
      assert.isAbove(r2.usage.completionTokens + r3.usage.completionTokens, 2 * r1.usage.completionTokens)
      assert.strictEqual(thinking.metrics.generationTokens, r2.usage.completionTokens + r3.usage.completionTokens)
    }))

  it.scopedLive("reasoning lengths drawn per prompt: the same call gets the same length in any arrival order", () =>
    Effect.gen(function*() {
      const options = {
        content: "lite",
        reasoningMeanTokens: 60,
        reasoningDraw: "prompt",
        faultSeed: 7,
        stepBaseMs: 1,
        tokensPerStep: 8
      } as const
      const a = yield* buildClient({ endpoints: [{ url: (yield* start(options)).url }], ...fast })
      const b = yield* buildClient({ endpoints: [{ url: (yield* start(options)).url }], ...fast })
      const ids = Array.from({ length: 8 }, (_, i) => `q${i}`)
      const lengths = (client: typeof a.client, order: ReadonlyArray<string>) =>
        Effect.map(
          Effect.forEach(order, (id) =>
            Effect.map(client.chat(request("init", id)), (r) => [id, r.usage.completionTokens] as const)),
          (pairs) =>
            new Map(pairs)
        )
      const forward = yield* lengths(a.client, ids)
      const backward = yield* lengths(b.client, [...ids].reverse())
      for (const id of ids) assert.strictEqual(backward.get(id), forward.get(id), id)
      assert.isAbove(new Set(forward.values()).size, 1, "lengths still vary between prompts")
    }))

  it.scopedLive("per-role reasoning means: long for the note writer, none for the judge", () =>
    Effect.gen(function*() {
      const plain = yield* start({ content: "lite" })
      const sim = yield* start({
        content: "lite",
        reasoningMeanTokens: 50,
        reasoningMeanTokensByRole: { init: 400, judge: 0 },
        faultSeed: 5,
        stepBaseMs: 1,
        tokensPerStep: 8
      })
      const a = yield* buildClient({ endpoints: [{ url: plain.url }], ...fast })
      const b = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const tokens = (client: typeof a.client, role: "init" | "judge" | "plan") =>
        Effect.map(
          Effect.forEach(Array.from({ length: 12 }, (_, i) => `q${i}`), (id) => client.chat(request(role, id)), {
            concurrency: 12
          }),
          (rs) => rs.reduce((n, r) => n + r.usage.completionTokens, 0)
        )
      const judgePlain = yield* tokens(a.client, "judge")
      assert.strictEqual(yield* tokens(b.client, "judge"), judgePlain, "judge=0: no reasoning part")
      const initExtra = (yield* tokens(b.client, "init")) - (yield* tokens(a.client, "init"))
      const planExtra = (yield* tokens(b.client, "plan")) - (yield* tokens(a.client, "plan"))
      assert.isAbove(initExtra / 12, 150, "init draws around its own mean of 400")
      assert.isAbove(planExtra, 0, "plan falls back to the global mean")
      assert.isBelow(planExtra / 12, 150)
    }))

  it("reads --reasoning-mean-tokens-by-role and names a bad entry", () => {
    assert.deepStrictEqual(
      parseRoleMeans("init=250, update=300,judge=0"),
      Either.right({ init: 250, update: 300, judge: 0 })
    )
    assert.deepStrictEqual(parseRoleMeans(""), Either.right({}))
    assert.deepStrictEqual(
      parseRoleMeans("note=3"),
      Either.left(
        `--reasoning-mean-tokens-by-role: unknown role "note" in "note=3" (roles: init, update, plan, judge, answer)`
      )
    )
    assert.include(
      Either.getLeft(parseRoleMeans("init=-2")).pipe((o) => (o._tag === "Some" ? o.value : "")),
      `"init=-2" needs a token count`
    )
  })

  it.scopedLive("prefix caching: a repeated prompt prefix skips prefill and is reported as cached tokens", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const off = yield* start({ content: "lite", prefixCaching: false })
      const a = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const b = yield* buildClient({ endpoints: [{ url: off.url }], ...fast })
      const first = yield* a.client.chat(request("init"))
      const second = yield* a.client.chat(request("init"))
      const streamed = yield* a.client.chat({ ...request("init"), stream: true })
      assert.strictEqual(first.usage.cachedPromptTokens, 0, "a cold cache")
      assert.isAbove(
        second.usage.cachedPromptTokens ?? 0,
        0.5 * second.usage.promptTokens,
        "the same prompt again: its whole blocks hit"
      )
      assert.isBelow(
        second.usage.cachedPromptTokens ?? 0,
        second.usage.promptTokens,
        "the last token is always computed"
      )
      assert.strictEqual(
        streamed.usage.cachedPromptTokens,
        second.usage.cachedPromptTokens,
        "SSE usage carries the details too"
      )
      assert.strictEqual(sim.metrics.prefixCacheHits, (second.usage.cachedPromptTokens ?? 0) * 2)
      assert.strictEqual(sim.metrics.prefixCacheQueries, first.usage.promptTokens * 3)
      const text = yield* Effect.flatMap(
        HttpClient.HttpClient,
        (http) => Effect.flatMap(http.get(`${sim.url}/metrics`), (r) => r.text)
      ).pipe(
        Effect.provide(httpClientLayer({ connections: 2 }))
      )
      assert.match(
        text,
        new RegExp(`vllm:prefix_cache_hits_total\\{model_name="deepnote-sim"\\} ${sim.metrics.prefixCacheHits}`)
      )
      yield* b.client.chat(request("init"))
      assert.isUndefined(
        (yield* b.client.chat(request("init"))).usage.cachedPromptTokens,
        "no details without prefix caching"
      )
      assert.strictEqual((yield* a.ledger.snapshot).total.cachedPromptTokens, sim.metrics.prefixCacheHits)
    }))
})
