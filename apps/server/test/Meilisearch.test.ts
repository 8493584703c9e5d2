import { indexIntoMeilisearch, MeiliClient } from "@deepnote-rag/retrieval"
import { meiliReplay } from "@deepnote-rag/retrieval/testing"
import { HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schedule } from "effect"
import * as Fs from "node:fs"
import { clientWith, createKey, makeHome, raw, sampleCorpus, sampleQuestions, settings, testServer } from "./Harness.js"

const question =
  "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"

/** A Meilisearch replay holding the sample corpus in the index `wiki`, and the operator's settings for it. */
const loadedMeili = Effect.gen(function*() {
  const server = yield* meiliReplay({ masterKey: "operator-key" })
  const meili = { host: server.url, index: "wiki", apiKey: Redacted.make("operator-key") }
  yield* indexIntoMeilisearch([sampleCorpus]).pipe(
    Effect.provide(MeiliClient.layer(meili).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  )
  return { server, meili }
})

describe("retriever meilisearch over HTTP (the operator's index, a recorded-shape replay)", () => {
  it.scopedLive("ask and runs search the operator's index; a collection beside it is refused", () =>
    Effect.gen(function*() {
      const { meili, server } = yield* loadedMeili
      const home = yield* makeHome
      const key = yield* createKey(home, "acme")
      return yield* Effect.gen(function*() {
        const client = yield* clientWith(key)
        const record = yield* client.ask.ask({
          payload: { question, config: { retriever: "meilisearch", maxStep: 2 } }
        })
        assert.strictEqual(record.collection, "meilisearch:wiki")
        assert.isAbove(record.result.trace.passages.length, 0)
        assert.isTrue(record.result.trace.passages.every((e) => e.passage.source === "meilisearch:wiki"))
        const searches = server.requests.filter((r) => r.path === "/indexes/wiki/search")
        assert.isAbove(searches.length, 0)
        assert.isTrue(searches.every((r) => r.authorization === "Bearer operator-key"))

        const withCollection = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question, collection: "wiki", config: { retriever: "meilisearch" } })
          ),
          key
        )
        assert.strictEqual(withCollection.status, 400)
        assert.strictEqual(JSON.parse(withCollection.text).error.field, "collection")

        const jsonl = Fs.readFileSync(sampleQuestions, "utf8").split("\n").slice(0, 2).join("\n")
        const run = yield* client.runs.create({
          payload: { jsonl, config: { retriever: "meilisearch", maxStep: 1, maxFailure: 1 } },
          urlParams: {}
        })
        assert.strictEqual(run.collection, `meilisearch:wiki@${server.url}`)
        assert.deepStrictEqual(
          // the run view shows endpoints as URLs (a trailing slash)
          run.manifest?.servers.map((s) => [s.endpoint.replace(/\/$/, ""), s.kind]),
          [[server.url, "meilisearch"]]
        )
        const done = yield* client.runs.get({ path: { id: run.id } }).pipe(
          Effect.filterOrFail((r) => !r.active, () => "still active"),
          Effect.retry(Schedule.spaced("50 millis")),
          Effect.timeout("60 seconds")
        )
        assert.deepStrictEqual([done.status, done.counts.done], ["completed", 2])
      }).pipe(Effect.provide(testServer(home, { ...settings(), meili })))
    }))

  it.scopedLive("a server without Meilisearch answers 400 naming config.retriever", () =>
    Effect.gen(function*() {
      const home = yield* makeHome
      const key = yield* createKey(home, "acme")
      return yield* Effect.gen(function*() {
        const bodies = {
          "/v1/ask": { question, config: { retriever: "meilisearch" } },
          "/v1/runs": { jsonl: JSON.stringify({ question }), config: { retriever: "meilisearch" } }
        }
        for (const [path, body] of Object.entries(bodies)) {
          const refused = yield* raw(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body)), key)
          assert.strictEqual(refused.status, 400, refused.text)
          const error = JSON.parse(refused.text).error
          assert.strictEqual(error.field, "config.retriever")
          assert.include(error.message, "no Meilisearch configured")
        }
      }).pipe(Effect.provide(testServer(home)))
    }))
})
