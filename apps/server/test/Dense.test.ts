import { AnswerRecord, Embedder, Home } from "@deepnote-rag/core"
import { HttpEmbedder } from "@deepnote-rag/llm"
import { start } from "@deepnote-rag/llm-sim"
import { Collections } from "@deepnote-rag/retrieval"
import { RunStore, Store } from "@deepnote-rag/store"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import * as Path from "node:path"
import { clientWith, homeWithTenant, raw, seedCollection, testServer } from "./Harness.js"

/** Embeds a stored collection of the home through the simulator's /v1/embeddings. */
const embed = (home: string, stored: string, url: string) =>
  Effect.gen(function*() {
    const embedder = Context.get(yield* Layer.build(HttpEmbedder.layer({ endpoints: [{ url }] })), Embedder)
    return yield* (yield* Collections).embed(stored, embedder)
  }).pipe(Effect.provide(Collections.layer.pipe(Layer.provide(Home.layer(home)))), Effect.scoped)

describe("the HTTP app with dense and hybrid retrieval (embeddings from the simulator over real HTTP)", () => {
  it.scopedLive("a request chooses its retriever; the embeddings server is the operator's (DEEPNOTE_EMBEDDINGS_URL)", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      const embedded = yield* embed(home, "acme__wiki", sim.url)
      yield* seedCollection(home, "acme__plain")
      assert.isAbove(embedded.vectors, 0)
      const env = ConfigProvider.fromMap(new Map([["DEEPNOTE_EMBEDDINGS_URL", sim.url]]))
      return yield* Effect.gen(function*() {
        const client = yield* clientWith(key)
        const question = "Who directed Big Stone Gap?"
        for (const retriever of ["dense", "hybrid"] as const) {
          const before = sim.metrics.poolingRequests
          const record = yield* client.ask.ask({
            payload: { question, collection: "wiki", config: { retriever, maxStep: 1, maxFailure: 1 } }
          })
          assert.instanceOf(record, AnswerRecord)
          assert.strictEqual(record.config.retriever, retriever)
          assert.isAbove(record.result.trace.passages.length, 0)
          assert.isAbove(sim.metrics.poolingRequests, before, `${retriever}: the queries were embedded by the server`)
        }
        const refused = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({
              question,
              collection: "wiki",
              config: { retriever: "dense", embeddingsUrl: "http://elsewhere:8000" }
            })
          ),
          key
        )
        assert.strictEqual(refused.status, 400, "a request cannot point the server at an embeddings URL")
        assert.include(refused.text, "embeddingsUrl")
        const unknown = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question, collection: "wiki", config: { retriever: "sparse" } })
          ),
          key
        )
        assert.strictEqual(unknown.status, 400)
        assert.include(unknown.text, "retriever")

        const plain = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question, collection: "plain", config: { retriever: "hybrid" } })
          ),
          key
        )
        assert.strictEqual(plain.status, 400, "a collection without vectors is the request's problem")
        assert.include(plain.text, "has no vectors")
        assert.include(plain.text, "plain")

        // a run records the collection's embeddings model and dimensions in its manifest
        const created = yield* raw(
          HttpClientRequest.post("/v1/runs").pipe(
            HttpClientRequest.bodyUnsafeJson({
              collection: "wiki",
              jsonl: JSON.stringify({ id: "q1", question, answers: ["Adriana Trigiani"] }),
              config: { retriever: "hybrid", maxStep: 1, maxFailure: 1 }
            })
          ),
          key
        )
        assert.strictEqual(created.status, 202, created.text)
        const runId = (JSON.parse(created.text) as { id: string }).id
        const manifest = (yield* Effect.flatMap(RunStore, (store) => store.getRun(runId)).pipe(
          Effect.provide(Store.layer({ url: Path.join(home, "deepnote.sqlite") }))
        )).manifest
        assert.deepStrictEqual(manifest.embeddings, { model: "deepnote-sim", dimensions: 384 })
        assert.strictEqual(manifest.config.retriever, "hybrid")
        // and the API's run view shows it (the inspector's run page reads it from there)
        const view = yield* raw(HttpClientRequest.get(`/v1/runs/${runId}`), key)
        assert.strictEqual(view.status, 200, view.text)
        assert.deepStrictEqual(
          (JSON.parse(view.text) as { manifest: { embeddings?: unknown } }).manifest.embeddings,
          { model: "deepnote-sim", dimensions: 384 }
        )
      }).pipe(Effect.provide(testServer(home)), Effect.withConfigProvider(env))
    }))

  it.scopedLive("a server without an embeddings server refuses dense and hybrid requests with a 400", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      return yield* Effect.gen(function*() {
        const refused = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question: "q", collection: "wiki", config: { retriever: "dense" } })
          ),
          key
        )
        assert.strictEqual(refused.status, 400)
        assert.include(refused.text, "no embeddings server")
        assert.include(refused.text, "DEEPNOTE_EMBEDDINGS_URL")
      }).pipe(Effect.provide(testServer(home)), Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
    }))
})
