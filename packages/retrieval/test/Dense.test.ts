import { Retriever } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import { Collections, DenseRetriever, HybridRetriever } from "../src/index.js"
import { request } from "./support/Context.js"
import { TempCollections } from "./support/TempHome.js"
import { wordEmbedder, wordVector } from "./support/WordEmbedder.js"

const docs = [
  { id: "paris", title: "Paris", text: "Paris is the capital and largest city of France." },
  { id: "berlin", title: "Berlin", text: "Berlin is the capital of Germany." },
  { id: "gold", title: "Mine B", text: "Mine B is a gold mine in Ghana, opened in 1897." },
  { id: "copper", title: "Mine A", text: "Mine A is a copper mine in Chile." },
  { id: "jaws", title: "Jaws", text: "Jaws is a thriller film directed by Steven Spielberg." }
]

const withDocs = Effect.flatMap(Collections, (c) => c.add("c", docs))

describe("Collections.embed and nearest (vectors in SQLite, the ANN file beside)", () => {
  it.scoped("embeds in batches, finds the nearest passage, and a reopened collection uses the saved ANN file", () =>
    Effect.gen(function*() {
      yield* withDocs
      const collections = yield* Collections
      const embedder = wordEmbedder({ batchSize: 2 })
      const summary = yield* collections.embed("c", embedder.service)
      assert.strictEqual(summary.embedded, 5)
      assert.strictEqual(summary.batches, 3)
      assert.deepStrictEqual([summary.vectors, summary.documents, summary.dimensions], [5, 5, 64])
      assert.isTrue(Fs.existsSync(summary.annFile))
      assert.isTrue(summary.annFile.endsWith("/collections/c.usearch"))
      const [best] = yield* collections.nearest("c", wordVector("gold mine Ghana"), "words-64", 2)
      assert.strictEqual(best!.id, "gold")
      assert.isAbove(best!.score, 0.3)

      const again = yield* collections.embed("c", embedder.service)
      assert.deepStrictEqual([again.embedded, again.batches, again.rebuilt], [0, 0, false], "nothing left to send")
      assert.strictEqual(embedder.calls.length, 3)
      const info = yield* collections.vectorInfo("c")
      assert.deepStrictEqual([info.model, info.dimensions, info.vectors, info.pending], ["words-64", 64, 5, 0])
      return summary.annFile
    }).pipe(
      Effect.flatMap((annFile) =>
        // a new service over the same home: the file is opened (mapped), not rebuilt — with the stored vectors
        // removed behind its back (the version unchanged), only the file can still answer
        Effect.gen(function*() {
          const stamp = Fs.statSync(annFile).mtimeMs
          const db = new Database(annFile.replace(/\.usearch$/, ".sqlite"))
          db.exec("DELETE FROM vectors")
          db.close()
          const collections = yield* Collections
          const [best] = yield* collections.nearest("c", wordVector("Spielberg thriller"), "words-64", 1)
          assert.strictEqual(best!.id, "jaws")
          assert.strictEqual(Fs.statSync(annFile).mtimeMs, stamp)
        }).pipe(Effect.provide(Collections.layer))
      ),
      Effect.provide(TempCollections)
    ))

  it.scoped("an interrupted embedding resumes: finished batches are never sent again", () =>
    Effect.gen(function*() {
      yield* withDocs
      const collections = yield* Collections
      const failing = wordEmbedder({ batchSize: 2, failAt: 3 })
      const error = yield* Effect.flip(collections.embed("c", failing.service))
      assert.strictEqual(error._tag, "EmbeddingError")
      assert.strictEqual((yield* collections.vectorInfo("c")).vectors, 4, "two batches committed")

      const resumed = wordEmbedder({ batchSize: 2 })
      const summary = yield* collections.embed("c", resumed.service)
      assert.strictEqual(summary.embedded, 1)
      assert.deepStrictEqual(resumed.calls, [["Jaws: Jaws is a thriller film directed by Steven Spielberg."]])
      assert.isTrue(summary.rebuilt, "the ANN file was never saved: rebuilt from the stored vectors")
      const [best] = yield* collections.nearest("c", wordVector("capital of Germany"), "words-64", 1)
      assert.strictEqual(best!.id, "berlin")
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("parallel requests: each batch committed as it answers, the same vectors as one at a time", () =>
    Effect.gen(function*() {
      yield* withDocs
      const collections = yield* Collections
      const embedder = wordEmbedder({ batchSize: 1 })
      const summary = yield* collections.embed("c", embedder.service, { parallel: 3 })
      assert.deepStrictEqual([summary.embedded, summary.batches, summary.vectors], [5, 5, 5])
      assert.sameMembers(embedder.calls.map((c) => c.length), [1, 1, 1, 1, 1])
      const [best] = yield* collections.nearest("c", wordVector("copper Chile"), "words-64", 1)
      assert.strictEqual(best!.id, "copper")
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("passages added later are embedded next time; deleted and replaced ones lose their vectors", () =>
    Effect.gen(function*() {
      yield* withDocs
      const collections = yield* Collections
      const embedder = wordEmbedder({ batchSize: 10 })
      yield* collections.embed("c", embedder.service)
      yield* collections.add("c", [{ id: "lyon", title: "Lyon", text: "Lyon is known for its cuisine." }])
      yield* collections.remove("c", ["paris"])
      yield* collections.add("c", [{ id: "copper", title: "Mine A", text: "Mine A sells tin now." }], {
        onDuplicate: "replace"
      })
      assert.deepStrictEqual((yield* collections.vectorInfo("c")).pending, 2)
      const summary = yield* collections.embed("c", embedder.service)
      assert.strictEqual(summary.embedded, 2)
      assert.sameMembers([...embedder.calls[1]!], [
        "Lyon: Lyon is known for its cuisine.",
        "Mine A: Mine A sells tin now."
      ])
      const found = yield* collections.nearest("c", wordVector("Paris capital France cuisine tin"), "words-64", 10)
      assert.notInclude(found.map((p) => p.id), "paris", "a deleted passage is not in the ANN index")
      assert.strictEqual(found.length, 5)
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("another model is refused with --reset as the way out; reset embeds everything again", () =>
    Effect.gen(function*() {
      yield* withDocs
      const collections = yield* Collections
      yield* collections.embed("c", wordEmbedder().service)
      const other = wordEmbedder({ model: "other" })
      const refused = yield* Effect.flip(collections.embed("c", other.service))
      assert.include(refused.message, "its vectors are from words-64 (64 dimensions)")
      assert.include(refused.message, "--reset")
      const query = yield* Effect.flip(collections.nearest("c", wordVector("gold"), "other", 1))
      assert.include(query.message, "the query's from other")
      const reset = yield* collections.embed("c", other.service, { reset: true })
      assert.deepStrictEqual([reset.embedded, reset.model], [5, "other"])
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("a collection without vectors says how to embed it; drop removes the ANN file", () =>
    Effect.gen(function*() {
      yield* withDocs
      const collections = yield* Collections
      const missing = yield* Effect.flip(collections.nearest("c", wordVector("gold"), "words-64", 1))
      assert.strictEqual(missing.message.split("\n").length, 1)
      assert.include(missing.message, "deepnote embed c")
      assert.strictEqual((yield* Effect.flip(collections.embeddingModel("c")))._tag, "NoVectors")
      const { annFile } = yield* collections.embed("c", wordEmbedder().service)
      assert.deepStrictEqual(yield* collections.embeddingModel("c"), { model: "words-64", dimensions: 64 })
      yield* collections.drop("c")
      assert.isFalse(Fs.existsSync(annFile))
      assert.isFalse(Fs.existsSync(`${annFile}.json`))
    }).pipe(Effect.provide(TempCollections)))
})

const search = (queries: ReadonlyArray<string>) =>
  Effect.flatMap(Retriever, (r) => r.search(request(queries, { topK: 3, recallK: 5 })))

describe("DenseRetriever and HybridRetriever", () => {
  it.scoped("dense finds by meaning of the vectors; hybrid fuses BM25 and dense lists", () =>
    Effect.gen(function*() {
      yield* withDocs
      const embedder = wordEmbedder()
      yield* Effect.flatMap(Collections, (c) => c.embed("c", embedder.service))
      const dense = yield* search(["gold mine"]).pipe(
        Effect.provide(DenseRetriever.layer({ collection: "c" }).pipe(Layer.provide(embedder.layer)))
      )
      assert.strictEqual(dense[0]!.id, "gold")
      assert.strictEqual(dense[0]!.source, "c")
      const hybrid = yield* search(["Germany capital", "Spielberg"]).pipe(
        Effect.provide(HybridRetriever.layer({ collection: "c" }).pipe(Layer.provide(embedder.layer)))
      )
      assert.includeMembers(hybrid.map((p) => p.id), ["berlin", "jaws"])
      assert.isAtMost(hybrid[0]!.score, 1, "RRF scores")
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("without an Embedder, a dense or hybrid search fails in one line naming DEEPNOTE_EMBEDDINGS_URL", () =>
    Effect.gen(function*() {
      yield* withDocs
      for (const layer of [DenseRetriever.layer({ collection: "c" }), HybridRetriever.layer({ collection: "c" })]) {
        const error = yield* Effect.flip(search(["gold"]).pipe(Effect.provide(layer)))
        assert.strictEqual(error._tag, "RetrievalError")
        assert.include(error.message, "set DEEPNOTE_EMBEDDINGS_URL")
      }
    }).pipe(Effect.provide(TempCollections)))
})
