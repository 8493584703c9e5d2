import { Retriever } from "@deepnote/core"
import { localServer, type Recorded, type Reply } from "@deepnote/retrieval/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { MeiliClient, meiliKey, MeiliRetriever } from "../src/index.js"
import { enqueued, invalidDocumentError, searchReply, task } from "./fixtures/meilisearch.js"
import { request } from "./support/Context.js"

/** A stand-in Meilisearch that answers with the documented reply shapes and polls tasks through "processing". */
const fakeMeili = (options: { failUploads?: boolean } = {}) => {
  const tasks = new Map<number, { type: string; details: Record<string, unknown> | null; polled: number }>()
  return localServer((r: Recorded): Reply => {
    const path = r.path.split("?")[0]!
    const enqueue = (type: string, details: Record<string, unknown> | null): Reply => {
      const uid = tasks.size + 1
      tasks.set(uid, { type, details, polled: 0 })
      return { status: 202, body: enqueued(uid, "passages", type) }
    }
    if (r.method === "PATCH" && path === "/indexes/passages/settings") {
      return enqueue("settingsUpdate", r.body as Record<string, unknown>)
    }
    if (r.method === "POST" && path === "/indexes/passages/documents") {
      const n = (r.body as Array<unknown>).length
      return enqueue("documentAdditionOrUpdate", {
        receivedDocuments: n,
        indexedDocuments: options.failUploads ? 0 : n
      })
    }
    if (r.method === "POST" && path === "/indexes/passages/documents/delete-batch") {
      return enqueue("documentDeletion", {
        providedIds: (r.body as Array<unknown>).length,
        deletedDocuments: 1,
        originalFilter: null
      })
    }
    const taskMatch = /^\/tasks\/(\d+)$/u.exec(path)
    if (r.method === "GET" && taskMatch !== null) {
      const uid = Number(taskMatch[1])
      const t = tasks.get(uid)!
      t.polled++
      if (t.polled === 1) return { status: 200, body: task(uid, "passages", t.type, "processing", t.details) }
      const failed = options.failUploads === true && t.type === "documentAdditionOrUpdate"
      return {
        status: 200,
        body: task(
          uid,
          "passages",
          t.type,
          failed ? "failed" : "succeeded",
          t.details,
          failed ? invalidDocumentError : null
        )
      }
    }
    if (r.method === "POST" && path === "/indexes/passages/search") {
      const body = r.body as { q: string; hybrid?: unknown }
      return {
        status: 200,
        body: searchReply(body.q, [
          { id: "DEV_0", title: "战国无双3", text: "《战国无双3》是由光荣和ω-force开发的", _rankingScore: 0.9546 },
          { id: "p2", title: "Other", text: "something else", _rankingScore: 0.8103 }
        ], body.hybrid !== undefined)
      }
    }
    return {
      status: 404,
      body: { message: `unexpected ${r.method} ${r.path}`, code: "not_found", type: "invalid_request", link: "" }
    }
  })
}

describe("Meilisearch adapter (contract, against documented reply shapes)", () => {
  it.scopedLive("configures settings, uploads in batches with task polling, deletes", () =>
    Effect.gen(function*() {
      const server = yield* fakeMeili()
      yield* Effect.gen(function*() {
        const meili = yield* MeiliClient
        yield* meili.configure({ chinese: true })
        const docs = Array.from(
          { length: 5 },
          (_, i) => ({ id: i === 4 ? "odd id/with:chars" : `d${i}`, title: `T${i}`, text: `text ${i}` })
        )
        assert.strictEqual(yield* meili.add(docs), 5)
        yield* meili.remove(["d1"])
      }).pipe(
        Effect.provide(
          MeiliClient.layer({ host: server.url, index: "passages", apiKey: Redacted.make("masterKey"), batchSize: 2 })
        )
      )
      const settings = server.requests.find((r) => r.method === "PATCH")!.body as Record<string, unknown>
      assert.deepStrictEqual(settings.searchableAttributes, ["title", "text"])
      assert.deepStrictEqual(settings.localizedAttributes, [{ attributePatterns: ["title", "text"], locales: ["cmn"] }])
      assert.deepStrictEqual(settings.rankingRules, ["words", "typo", "proximity", "attribute", "sort", "exactness"])
      const uploads = server.requests.filter((r) =>
        r.method === "POST" && r.path.startsWith("/indexes/passages/documents?")
      )
      assert.deepStrictEqual(uploads.map((u) => (u.body as Array<unknown>).length), [2, 2, 1])
      assert.include(uploads[0]!.path, "primaryKey=key")
      assert.deepStrictEqual(uploads[2]!.body, [{
        key: meiliKey("odd id/with:chars"),
        id: "odd id/with:chars",
        title: "T4",
        text: "text 4"
      }])
      assert.match(meiliKey("odd id/with:chars"), /^h[0-9a-f]{40}$/u)
      assert.isAbove(server.requests.filter((r) => r.path.startsWith("/tasks/")).length, 5)
    }))

  it.scopedLive("a failed task is a MeiliError with the server's message", () =>
    Effect.gen(function*() {
      const server = yield* fakeMeili({ failUploads: true })
      const error = yield* Effect.flip(
        Effect.flatMap(MeiliClient, (m) => m.add([{ id: "a", title: "", text: "x" }])).pipe(
          Effect.provide(MeiliClient.layer({ host: server.url, index: "passages" }))
        )
      )
      assert.strictEqual(error._tag, "MeiliError")
      assert.include(error.message, "failed: Document identifier")
    }))

  it.scopedLive("retrieves with showRankingScore, cmn locales for Chinese and hybrid when configured", () =>
    Effect.gen(function*() {
      const server = yield* fakeMeili()
      const layer = MeiliRetriever.layer({ host: server.url, index: "passages", embedder: "bge", semanticRatio: 0.3 })
      const found = yield* Effect.flatMap(Retriever, (r) => r.search(request(["战国无双3是谁开发的"], { topK: 1 })))
        .pipe(Effect.provide(layer))
      assert.deepStrictEqual(found.map((p) => [p.id, p.score, p.source]), [["DEV_0", 0.9546, "meilisearch"]])
      const body = server.requests[0]!.body as Record<string, unknown>
      assert.strictEqual(body.showRankingScore, true)
      assert.deepStrictEqual(body.locales, ["cmn"])
      assert.deepStrictEqual(body.hybrid, { embedder: "bge", semanticRatio: 0.3 })
      assert.strictEqual(body.limit, 50)
      yield* Effect.flatMap(Retriever, (r) => r.search(request(["english words"]))).pipe(
        Effect.provide(MeiliRetriever.layer({ host: server.url, index: "passages" }))
      )
      const english = server.requests[1]!.body as Record<string, unknown>
      assert.isUndefined(english.locales)
      assert.isUndefined(english.hybrid)
    }))

  it.scopedLive("an unreachable server is a RetrievalError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.flatMap(Retriever, (r) => r.search(request(["x"]))).pipe(
          Effect.provide(MeiliRetriever.layer({ host: "http://127.0.0.1:9", index: "passages" }))
        )
      )
      assert.strictEqual(error._tag, "RetrievalError")
      assert.include(error.message, "meilisearch search")
    }))
})
