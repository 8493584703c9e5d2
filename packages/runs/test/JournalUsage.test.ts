import { defaultRunConfig, Passage, Retriever } from "@deepnote/core"
import {
  LlmAnswerer,
  LlmCache,
  LlmClient,
  LlmJudge,
  LlmNoteWriter,
  LlmQueryPlanner,
  LlmSettings,
  UsageLedger
} from "@deepnote/llm"
import { createRun, processOwner, RunEvents, RunExecutor } from "@deepnote/runs"
import { Journal, RunStore, Store } from "@deepnote/store"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { sampleQuestions } from "./Engine.js"

const services = Layer.mergeAll(
  RunExecutor.layer.pipe(Layer.provideMerge(Layer.merge(Store.layer({ url: "sqlite::memory:" }), RunEvents.layer))),
  NodeContext.layer
)

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
  Layer.mergeAll(LlmNoteWriter.layer, LlmQueryPlanner.layer, LlmJudge.layer, LlmAnswerer.layer).pipe(
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
      const { run } = yield* createRun({
        dataset: sampleQuestions,
        limit: 6,
        config: { ...defaultRunConfig, engine: "llm" },
        collection: "sample",
        promptSetHash: "llm@test"
      })
      const summary = yield* (yield* RunExecutor).execute(run.id, {
        engine,
        concurrency: 3,
        owner: processOwner("usage")
      })
      assert.strictEqual(summary.status, "completed")
      const journal = yield* Journal
      const items = Chunk.toReadonlyArray(yield* Stream.runCollect((yield* RunStore).results(run.id)))
      for (const item of items) {
        const entries = yield* journal.entries(run.id, item.itemId)
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
    }).pipe(Effect.provide(services)))
})
