import { AnswerRecord } from "@deepnote-rag/core"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { clientWith, createKey, homeWithTenant, makeHome, raw, testServer } from "./Harness.js"

describe("HTTP API (typed client, in-process server)", () => {
  it.scopedLive("health, OpenAPI, docs, collections, ask (JSON and SSE), errors", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      return yield* Effect.gen(function*() {
        const client = yield* clientWith(key)
        const health = yield* client.health.healthz()
        assert.strictEqual(health.status, "ok")
        const ready = yield* client.health.readyz()
        assert.strictEqual(ready.engine, "extractive")

        const openapi = yield* raw(HttpClientRequest.get("/openapi.json"))
        assert.strictEqual(openapi.status, 200)
        assert.include(openapi.text, "/v1/chat/completions")
        const docs = yield* raw(HttpClientRequest.get("/docs"))
        assert.strictEqual(docs.status, 200)
        assert.include(docs.text, "swagger")

        const listed = yield* client.collections.list()
        assert.deepStrictEqual(listed.collections.map((c) => c.name), ["wiki"])
        const hits = yield* client.collections.search({
          path: { name: "wiki" },
          urlParams: { q: "Corliss Archer", k: 3 }
        })
        assert.strictEqual(hits.hits.length, 3)
        assert.include(hits.hits[0]!.title, "Corliss Archer")

        const record = yield* client.ask.ask({
          payload: {
            question:
              "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
            collection: "wiki",
            config: { maxStep: 2 }
          }
        })
        assert.instanceOf(record, AnswerRecord)
        assert.strictEqual(record.collection, "wiki")
        assert.strictEqual(record.config.maxStep, 2)
        assert.isAbove(record.result.trace.passages.length, 0)

        // the passage budget and the query composition are request knobs like the others
        const budgeted = yield* client.ask.ask({
          payload: {
            question: "Who directed Big Stone Gap?",
            collection: "wiki",
            config: { maxUniquePassages: 6, queryComposition: "qt" }
          }
        })
        assert.deepStrictEqual([budgeted.config.maxUniquePassages, budgeted.config.queryComposition], [6, "qt"])
        assert.isAtMost(budgeted.result.counters.uniquePassages, 6)
        const composition = JSON.parse(
          (yield* raw(
            HttpClientRequest.post("/v1/ask").pipe(
              HttpClientRequest.bodyUnsafeJson({
                question: "q",
                collection: "wiki",
                config: { queryComposition: "q0" }
              })
            ),
            key
          )).text
        )
        assert.deepStrictEqual([composition.error.code, composition.error.field], [
          "validation_error",
          "config.queryComposition"
        ])

        const sse = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.setHeader("accept", "text/event-stream"),
            HttpClientRequest.bodyUnsafeJson({ question: "Who directed Big Stone Gap?", collection: "wiki" })
          ),
          key
        )
        assert.strictEqual(sse.status, 200)
        assert.include(sse.headers["content-type"] ?? "", "text/event-stream")
        assert.include(sse.text, "event: Retrieved")
        assert.include(sse.text, "event: Answered")
        const result = sse.text.split("\n\n").find((block) => /^event: result$/m.test(block))
        assert.isDefined(result)
        const decoded = Schema.decodeUnknownSync(Schema.parseJson(AnswerRecord))(result!.split("\ndata: ")[1]!)
        assert.strictEqual(decoded.result.question, "Who directed Big Stone Gap?")

        // validation errors name the field, with a stable code (the typed client checks the schema before sending)
        const bad = yield* Effect.flip(
          client.ask.ask({ payload: { question: "q", collection: "wiki", config: { topK: 0 } } })
        )
        assert.strictEqual(bad._tag, "ParseError")
        const zero = JSON.parse(
          (yield* raw(
            HttpClientRequest.post("/v1/ask").pipe(
              HttpClientRequest.bodyUnsafeJson({ question: "q", config: { topK: 0 } })
            ),
            key
          )).text
        )
        assert.deepStrictEqual([zero.error.code, zero.error.field], ["validation_error", "config.topK"])
        const badRaw = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question: "q", config: { topK: 9, recallK: 3 } })
          ),
          key
        )
        assert.strictEqual(badRaw.status, 400)
        const body = JSON.parse(badRaw.text)
        assert.strictEqual(body.error.code, "validation_error")
        assert.strictEqual(body.error.field, "config.topK")
        const missing = JSON.parse(
          (yield* raw(
            HttpClientRequest.post("/v1/ask").pipe(HttpClientRequest.bodyUnsafeJson({ collection: "wiki" })),
            key
          )).text
        )
        assert.strictEqual(missing.error.field, "question")
        const unknownCollection = yield* Effect.flip(client.ask.ask({ payload: { question: "q", collection: "nope" } }))
        assert.strictEqual(unknownCollection._tag, "NotFound")
        const route = yield* raw(HttpClientRequest.get("/v1/nothing"), key)
        assert.strictEqual(route.status, 404)
        assert.strictEqual(JSON.parse(route.text).error.code, "not_found")
      }).pipe(Effect.provide(testServer(home)))
    }))

  it.scopedLive("API keys: missing, wrong and revoked keys get 401; malformed and oversized bodies get 400 / 413", () =>
    Effect.gen(function*() {
      const home = yield* makeHome
      const key = yield* createKey(home, "acme")
      return yield* Effect.gen(function*() {
        const none = yield* raw(HttpClientRequest.get("/v1/collections"))
        assert.strictEqual(none.status, 401)
        assert.strictEqual(JSON.parse(none.text).error.code, "unauthorized")
        assert.strictEqual(none.headers["www-authenticate"], "Bearer")
        const wrong = yield* raw(HttpClientRequest.get("/v1/collections"), key.slice(0, -2) + "xx")
        assert.strictEqual(wrong.status, 401)

        const malformed = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(HttpClientRequest.bodyText("{\"question\": ", "application/json")),
          key
        )
        assert.strictEqual(malformed.status, 400)
        assert.strictEqual(JSON.parse(malformed.text).error.code, "malformed_body")

        const big = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question: "x".repeat(2 * 1024 * 1024) })
          ),
          key
        )
        assert.strictEqual(big.status, 413)
        assert.strictEqual(JSON.parse(big.text).error.code, "payload_too_large")

        const client = yield* clientWith(key)
        yield* client.collections.create({ payload: { name: "docs" } })
        const dup = yield* Effect.flip(client.collections.create({ payload: { name: "docs" } }))
        assert.strictEqual(dup._tag, "Conflict")
        const badDocs = yield* raw(
          HttpClientRequest.post("/v1/collections/docs/documents").pipe(
            HttpClientRequest.bodyText(`{"title":"a","text":"fine"}\n{"title":"b","text":""}\n`, "application/x-ndjson")
          ),
          key
        )
        // validated by the background job (the body is not parsed on the request path): it fails, naming the line
        assert.strictEqual(badDocs.status, 202)
        let refused = yield* client.collections.job({ path: { name: "docs", jobId: JSON.parse(badDocs.text).id } })
        while (refused.status === "queued" || refused.status === "running") {
          yield* Effect.sleep("20 millis")
          refused = yield* client.collections.job({ path: { name: "docs", jobId: refused.id } })
        }
        assert.strictEqual(refused.status, "failed")
        assert.include(refused.message ?? "", "line 2: text: text is empty")
        assert.strictEqual(refused.added, 0)
        const badName = yield* raw(
          HttpClientRequest.post("/v1/collections").pipe(HttpClientRequest.bodyUnsafeJson({ name: "../etc" })),
          key
        )
        assert.strictEqual(badName.status, 400)
        assert.strictEqual(JSON.parse(badName.text).error.field, "name")

        const job = yield* client.collections.addDocuments({
          path: { name: "docs" },
          payload: [{ title: "Ada Lovelace", text: "Ada Lovelace wrote the first published computer program." }, {
            text: "Charles Babbage designed the Analytical Engine."
          }]
        })
        assert.strictEqual(job.received, 2)
        let status = job
        while (status.status === "queued" || status.status === "running") {
          yield* Effect.sleep("20 millis")
          status = yield* client.collections.job({ path: { name: "docs", jobId: job.id } })
        }
        assert.strictEqual(status.status, "done")
        assert.strictEqual(status.added, 2)
        const jsonl = yield* client.collections.addDocuments({
          path: { name: "docs" },
          payload: `{"title":"Grace Hopper","text":"Grace Hopper built the first compiler."}\n`
        })
        assert.strictEqual(jsonl.received, 1)
        const found = yield* client.collections.search({
          path: { name: "docs" },
          urlParams: { q: "Analytical Engine" }
        })
        assert.strictEqual(found.hits[0]?.text, "Charles Babbage designed the Analytical Engine.")
      }).pipe(Effect.provide(testServer(home)))
    }))
})
