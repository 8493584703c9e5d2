import { Retriever } from "@deepnote-rag/core"
import { localServer, type Recorded, type Reply } from "@deepnote-rag/retrieval/testing"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Collections, FtsRetriever, Reranker } from "../src/index.js"
import { request } from "./support/Context.js"
import { TempCollections } from "./support/TempHome.js"

const RerankerTest = Reranker.layer({ timeout: "2 seconds", retries: 3, backoff: "10 millis" }).pipe(
  Layer.provide(NodeHttpClient.layerUndici)
)

/** Scores documents by how often they contain "gold", the way a cross-encoder would prefer them. */
const relevance = (doc: string) => (doc.match(/gold/gu)?.length ?? 0) / 10

const flavours: Array<
  { api: "vllm-rerank" | "cohere" | "vllm-score" | "tei"; path: string; reply: (body: Recorded["body"]) => unknown }
> = [
  {
    api: "vllm-rerank",
    path: "/v1/rerank",
    reply: (b) => ({
      id: "rerank-1",
      model: "BAAI/bge-reranker-v2-m3",
      usage: { total_tokens: 42 },
      results: (b as { documents: Array<string> }).documents.map((d, index) => ({
        index,
        document: { text: d },
        relevance_score: relevance(d)
      }))
    })
  },
  {
    api: "cohere",
    path: "/v1/rerank",
    reply: (b) => ({
      id: "c-1",
      results: (b as { documents: Array<string> }).documents.map((d, index) => ({
        index,
        relevance_score: relevance(d)
      })),
      meta: { api_version: { version: "1" } }
    })
  },
  {
    api: "vllm-score",
    path: "/score",
    reply: (b) => ({
      id: "score-1",
      object: "list",
      model: "BAAI/bge-reranker-v2-m3",
      data: (b as { text_2: Array<string> }).text_2.map((d, index) => ({
        index,
        object: "score",
        score: relevance(d)
      })),
      usage: {}
    })
  },
  {
    api: "tei",
    path: "/rerank",
    reply: (b) => (b as { texts: Array<string> }).texts.map((d, index) => ({ index, score: relevance(d) }))
  }
]

const documents = ["nothing here", "gold gold gold", "gold once", "still nothing"]

describe("Reranker over HTTP", () => {
  for (const flavour of flavours) {
    it.scopedLive(`${flavour.api}: ${flavour.path}`, () =>
      Effect.gen(function*() {
        const server = yield* localServer((r) => ({ status: 200, body: flavour.reply(r.body) }))
        const reranker = yield* Reranker
        const ranked = yield* reranker.rerank(
          { api: flavour.api, url: server.url, model: "BAAI/bge-reranker-v2-m3" },
          "where is the gold",
          documents,
          2
        )
        assert.deepStrictEqual(ranked.map((r) => r.index), [1, 2])
        assert.strictEqual(server.requests[0]!.path, flavour.path)
        const body = server.requests[0]!.body as Record<string, unknown>
        if (flavour.api === "tei") {
          assert.deepStrictEqual(body, { query: "where is the gold", texts: documents, truncate: true })
        }
        if (flavour.api === "vllm-score") {
          assert.deepStrictEqual(body.text_2, documents)
        }
        if (flavour.api === "vllm-rerank" || flavour.api === "cohere") assert.strictEqual(body.top_n, 2)
      }).pipe(Effect.provide(RerankerTest)))
  }

  it.scopedLive("retries a 503 and then succeeds", () =>
    Effect.gen(function*() {
      const server = yield* localServer((r, n): Reply =>
        n === 1 ? { status: 503, body: { error: "overloaded" } } : { status: 200, body: flavours[0]!.reply(r.body) }
      )
      const ranked = yield* Effect.flatMap(Reranker, (r) =>
        r.rerank({ api: "vllm-rerank", url: `${server.url}/v1`, model: undefined }, "q", documents, 1))
      assert.deepStrictEqual(
        ranked.map((r) =>
          r.index
        ),
        [1]
      )
      assert.strictEqual(server.requests.length, 2)
      assert.strictEqual(server.requests[1]!.path, "/v1/rerank")
    }).pipe(Effect.provide(RerankerTest)))

  it.scopedLive("a malformed reply is a clear error and is not retried", () =>
    Effect.gen(function*() {
      const server = yield* localServer(() => ({
        status: 200,
        body: { results: [{ index: "zero", relevance_score: 1 }] }
      }))
      const error = yield* Effect.flip(
        Effect.flatMap(Reranker, (r) => r.rerank({ api: "cohere", url: server.url, model: "m" }, "q", documents, 2))
      )
      assert.strictEqual(error._tag, "RerankError")
      assert.include(error.message, "malformed cohere rerank reply")
      assert.include(error.message, "index")
      assert.strictEqual(server.requests.length, 1)
      const notJson = yield* localServer(() => ({ status: 200, body: "<html>oops", raw: true }))
      const second = yield* Effect.flip(
        Effect.flatMap(Reranker, (r) => r.rerank({ api: "tei", url: notJson.url, model: undefined }, "q", documents, 2))
      )
      assert.include(second.message, "malformed rerank reply (not JSON)")
      const outOfRange = yield* localServer(() => ({ status: 200, body: [{ index: 9, score: 1 }] }))
      const third = yield* Effect.flip(Effect.flatMap(Reranker, (r) =>
        r.rerank({ api: "tei", url: outOfRange.url, model: undefined }, "q", documents, 2)))
      assert.include(third.message, "index 9 out of 4")
      const badRequest = yield* localServer(() => ({ status: 400, body: { error: "model not found" } }))
      const fourth = yield* Effect.flip(Effect.flatMap(Reranker, (r) =>
        r.rerank({ api: "tei", url: badRequest.url, model: undefined }, "q", documents, 2)))
      assert.deepStrictEqual([fourth.status, fourth.transient, badRequest.requests.length], [400, false, 1])
    }).pipe(Effect.provide(RerankerTest)))

  it.scopedLive("the retriever reranks the recalled pool when config.reranker is http", () =>
    Effect.gen(function*() {
      const server = yield* localServer((r) => ({ status: 200, body: flavours[3]!.reply(r.body) }))
      yield* Effect.flatMap(Collections, (c) =>
        c.add("mines", [
          { id: "a", title: "Mine A", text: "A mine of copper ore." },
          { id: "b", title: "Mine B", text: "A mine that had gold, gold and more gold." },
          { id: "c", title: "Mine C", text: "A mine of mine mine mine iron." }
        ]))
      const config = { reranker: "http" as const, rerankerApi: "tei" as const, rerankerUrl: server.url }
      const plain = yield* Effect.flatMap(Retriever, (r) => r.search(request(["mine"], { topK: 2 })))
      const reranked = yield* Effect.flatMap(Retriever, (r) => r.search(request(["mine"], { topK: 2, config })))
      assert.notStrictEqual(plain[0]!.id, "b")
      assert.strictEqual(reranked[0]!.id, "b")
      assert.closeTo(reranked[0]!.score, 0.3, 1e-9)
      assert.strictEqual((server.requests[0]!.body as { texts: Array<string> }).texts.length, 3)
      assert.include((server.requests[0]!.body as { texts: Array<string> }).texts[0]!, ": A mine")
    }).pipe(
      Effect.provide(
        FtsRetriever.layer({ collection: "mines" }).pipe(
          Layer.provideMerge(TempCollections),
          Layer.provideMerge(RerankerTest)
        )
      )
    ))
})
