import { answerQuestion } from "@deepnote-rag/core"
import { MeiliClient } from "@deepnote-rag/retrieval"
import { meiliReplay } from "@deepnote-rag/retrieval/testing"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { Engine } from "../src/index.js"
import { config, goldReranker, mines, MinesCollection, question, search, unusedLlm } from "./support.js"

/** A Meilisearch replay holding the mines in the index `mines`. */
const minesIndex = Effect.gen(function*() {
  const server = yield* meiliReplay({ masterKey: "key-123" })
  const options = { host: server.url, index: "mines", apiKey: Redacted.make("key-123") }
  yield* Effect.flatMap(MeiliClient, (m) => Effect.zipRight(m.prepare({}), m.add(mines))).pipe(
    Effect.provide(MeiliClient.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  )
  return { server, options }
})

describe("Engine with retriever meilisearch", () => {
  // the collection named is not searched (the mines collection beside it is what bm25 would find)
  it.scopedLive("answers from the Meilisearch index, not the collection", () =>
    Effect.gen(function*() {
      const { options, server } = yield* minesIndex
      const cfg = config({ retriever: "meilisearch" })
      const result = yield* answerQuestion(question, cfg).pipe(
        Effect.provide(Engine.layer({ config: cfg, collection: "unused", llm: unusedLlm, meili: options }))
      )
      assert.include(result.answer.text, "Mine B")
      assert.isTrue(result.trace.passages.every((e) => e.passage.source === "meilisearch:mines"))
      assert.isTrue(server.requests.some((r) => r.path === "/indexes/mines/search"))
    }).pipe(Effect.provide(MinesCollection)))

  it.scopedLive("reranks Meilisearch's candidates; without options it reads DEEPNOTE_MEILI_*", () =>
    Effect.gen(function*() {
      const { server } = yield* minesIndex
      const reranker = yield* goldReranker
      const cfg = config({ retriever: "meilisearch", reranker: "http", rerankerApi: "tei", rerankerUrl: reranker.url })
      const found = yield* search(["mine opened"], cfg).pipe(
        Effect.provide(Engine.layer({ config: cfg, collection: "unused", llm: unusedLlm })),
        Effect.withConfigProvider(
          ConfigProvider.fromMap(
            new Map([
              ["DEEPNOTE_MEILI_HOST", server.url],
              ["DEEPNOTE_MEILI_INDEX", "mines"],
              ["DEEPNOTE_MEILI_API_KEY", "key-123"]
            ])
          )
        )
      )
      assert.strictEqual(found[0]!.id, "b")
      assert.strictEqual(reranker.requests.length, 1)
    }).pipe(Effect.provide(MinesCollection)))

  it.scopedLive("Engine.make: every layerFor with retriever meilisearch searches the shared index", () =>
    Effect.gen(function*() {
      const { options } = yield* minesIndex
      const shared = yield* Engine.make({ engine: "extractive", llm: unusedLlm, meili: options })
      const found = yield* search(["gold"], config({ retriever: "meilisearch" })).pipe(
        Effect.provide(shared.layerFor(config({ retriever: "meilisearch" }), "not-a-collection"))
      )
      assert.deepStrictEqual(found.map((p) => p.id), ["b"])
      const bm25 = yield* search(["gold"]).pipe(Effect.provide(shared.layerFor(config(), "mines")))
      assert.deepStrictEqual(bm25.map((p) => [p.id, p.source]), [["b", "mines"]])
    }).pipe(Effect.provide(MinesCollection)))
})
