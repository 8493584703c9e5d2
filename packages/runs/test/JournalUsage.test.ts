import { defaultRunConfig, Passage, Retriever } from "@deepnote-rag/core"
import { LlmCache, LlmClient, LlmEngine, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { processOwner, RunExecutor } from "@deepnote-rag/runs"
import { Journal, RunStore } from "@deepnote-rag/store"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { memoryServices, newRun } from "./Runs.js"

const replies: Record<string, string> = {
  init: "A note about the question.",
  update: "A better note about the question.",
  plan: "{\"queries\": [\"one more query\"]}",
  judge: "True",
  answer: "an answer"
}

/** An in-process OpenAI-compatible server (no sockets) reporting fixed usage per call. */
const fakeServer = Layer.succeed(
  HttpClient.HttpClient,
  HttpClient.make((request, url) =>
    Effect.sync(() => {
      const body = url.pathname === "/v1/models"
        ? { data: [{ id: "fake-model", max_model_len: 4096 }] }
        : {
          model: "fake-model",
          choices: [{ message: { content: replies[request.headers["x-deepnote-role"] ?? ""] ?? "?" } }],
          usage: { prompt_tokens: 50, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 20 } }
        }
      return HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body)))
    })
  )
)

const engine = Layer.merge(
  LlmEngine.rolesLayer.pipe(
    Layer.provideMerge(LlmClient.layer),
    Layer.provide(Layer.mergeAll(UsageLedger.layer, LlmCache.layerTest, fakeServer)),
    Layer.provide(LlmSettings.layer({ endpoints: [{ url: "http://fake:8000" }] }))
  ),
  Retriever.layerTest({
    search: () => Effect.succeed([new Passage({ id: "p", title: "T", text: "A passage.", source: "t", score: 1 })])
  })
)

describe("runs: each journaled LLM call records its own usage", () => {
  it.scopedLive("tokens, cached tokens, model and endpoint per role call, from the call's own collector", () =>
    Effect.gen(function*() {
      const runId = yield* newRun(6, { config: { ...defaultRunConfig, engine: "llm" }, promptSetHash: "llm@test" })
      const summary = yield* (yield* RunExecutor).execute(runId, {
        engine,
        concurrency: 3,
        owner: processOwner("usage")
      })
      assert.strictEqual(summary.status, "completed")
      const journal = yield* Journal
      const items = Chunk.toReadonlyArray(yield* Stream.runCollect((yield* RunStore).results(runId)))
      for (const item of items) {
        const entries = yield* journal.entries(runId, item.itemId)
        const llm = entries.filter((e) => e.kind !== "retrieve")
        assert.isAbove(llm.length, 2)
        for (const e of llm) {
          assert.deepStrictEqual(e.usage, {
            promptTokens: 50,
            completionTokens: 5,
            totalTokens: 55,
            cachedTokens: 20,
            model: "fake-model",
            endpoint: "http://fake:8000"
          }, `${item.itemId} ${e.kind}`)
        }
        assert.isTrue(entries.filter((e) => e.kind === "retrieve").every((e) => e.usage === undefined))
      }
    }).pipe(Effect.provide(memoryServices)))
})
