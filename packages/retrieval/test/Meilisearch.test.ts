import { describeConfigFailure, Retriever } from "@deepnote-rag/core"
import { localServer, meiliErrors, meiliReplay } from "@deepnote-rag/retrieval/testing"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Redacted } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import {
  indexIntoMeilisearch,
  type IngestProgress,
  MeiliClient,
  meiliEnvironment,
  meiliKey,
  type MeiliOptions,
  meiliOptionsConfig,
  MeiliRetriever,
  mergeMeiliSettings
} from "../src/index.js"
import { request } from "./support/Context.js"

const corpus = (name: string) =>
  Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../examples/sample/corpus", name)

/** Quick retries and deadlines: the replay answers at once, a failure should show at once. */
const client = (options: Partial<MeiliOptions> & { readonly host: string }) =>
  MeiliClient.layer({ index: "passages", retries: 0, taskTimeout: "20 seconds", ...options }).pipe(
    Layer.provide(NodeHttpClient.layerUndici)
  )

const withClient = <A, E>(
  options: Partial<MeiliOptions> & { readonly host: string },
  f: (meili: MeiliClient["Type"]) => Effect.Effect<A, E>
) => Effect.flatMap(MeiliClient, f).pipe(Effect.provide(client(options)))

describe("Meilisearch adapter (contract, against the recorded reply shapes of Meilisearch v1)", () => {
  it.scopedLive("creates the index with primary key `key`, sets settings, uploads in batches polling each task", () =>
    Effect.gen(function*() {
      const server = yield* meiliReplay({ masterKey: "masterKey", pollsPerState: 2 })
      yield* withClient(
        { host: server.url, apiKey: Redacted.make("masterKey"), batchSize: 2 },
        (meili) =>
          Effect.gen(function*() {
            yield* meili.prepare({ chinese: true })
            const docs = Array.from({ length: 5 }, (_, i) => ({
              id: i === 4 ? "odd id/with:chars" : `d${i}`,
              title: `T${i}`,
              text: `text ${i}`
            }))
            assert.strictEqual(yield* meili.add(docs), 5)
            yield* meili.remove(["d1"])
            assert.strictEqual(yield* meili.count, 4)
          })
      )
      const index = server.indexes.get("passages")!
      assert.strictEqual(index.primaryKey, "key")
      assert.deepStrictEqual(index.settings.searchableAttributes, ["title", "text"])
      assert.deepStrictEqual(index.settings.localizedAttributes, [{
        attributePatterns: ["title", "text"],
        locales: ["cmn"]
      }])
      assert.deepStrictEqual(index.settings.rankingRules, [
        "words",
        "typo",
        "proximity",
        "attribute",
        "sort",
        "exactness"
      ])
      assert.deepStrictEqual(index.documents.get(meiliKey("odd id/with:chars")), {
        key: meiliKey("odd id/with:chars"),
        id: "odd id/with:chars",
        title: "T4",
        text: "text 4"
      })
      const uploads = server.requests.filter((r) => r.method === "POST" && r.path.includes("/documents?"))
      assert.deepStrictEqual(uploads.map((u) => (u.body as Array<unknown>).length), [2, 2, 1])
      assert.include(uploads[0]!.path, "primaryKey=key")
      // every task is polled through enqueued (2 polls) and processing (2 polls) to its final state
      const polls = server.requests.filter((r) => r.path === "/tasks/2")
      assert.strictEqual(polls.length, 5)
      assert.isTrue(server.requests.every((r) => r.path === "/health" || r.authorization === "Bearer masterKey"))
    }))

  it.scopedLive("indexes corpus files: checks health, detects Chinese, reports progress, re-runs replace", () =>
    Effect.gen(function*() {
      const server = yield* meiliReplay()
      const progress: Array<IngestProgress> = []
      const index = (file: string) =>
        indexIntoMeilisearch([corpus(file)], {
          batchSize: 3,
          onProgress: (p) => Effect.sync(() => void progress.push(p))
        }).pipe(Effect.provide(client({ host: server.url, index: "zh" })))
      const first = yield* index("cmrc2018-paragraphs.jsonl")
      assert.deepStrictEqual([first.language, first.sent, first.indexed, first.documents], ["zh", 8, 8, 8])
      assert.strictEqual(first.index, "zh")
      assert.deepStrictEqual(progress.map((p) => p.added), [3, 6, 8])
      assert.strictEqual(server.requests[0]!.path, "/health")
      assert.deepStrictEqual(server.indexes.get("zh")!.settings.localizedAttributes, [
        { attributePatterns: ["title", "text"], locales: ["cmn"] }
      ])
      const again = yield* index("cmrc2018-paragraphs.jsonl")
      assert.deepStrictEqual([again.sent, again.documents], [8, 8])
    }))

  it.scopedLive("a failed task is one line with Meilisearch's error message and code", () =>
    Effect.gen(function*() {
      const server = yield* meiliReplay({
        failTask: (type) => type === "documentAdditionOrUpdate" ? meiliErrors.noSpaceLeftOnDevice : undefined
      })
      const error = yield* Effect.flip(
        withClient({ host: server.url }, (m) => m.add([{ id: "a", title: "", text: "x" }]))
      )
      assert.strictEqual(error.reason, "task")
      assert.strictEqual(error.code, "no_space_left_on_device")
      assert.match(
        error.message,
        /^Meilisearch at http:\/\/127\.0\.0\.1:\d+: task 0 \(documentAdditionOrUpdate on index passages\) failed: No space left on device\. \(no_space_left_on_device\)$/
      )
    }))

  it.scopedLive("a missing key is 401 and a wrong key 403, each a message that says what to set", () =>
    Effect.gen(function*() {
      const server = yield* meiliReplay({ masterKey: "masterKey" })
      const missing = yield* Effect.flip(withClient({ host: server.url }, (m) => m.prepare({})))
      assert.deepStrictEqual([missing.status, missing.code], [401, "missing_authorization_header"])
      assert.include(missing.message, "The Authorization header is missing")
      assert.include(missing.message, "DEEPNOTE_MEILI_API_KEY")
      const wrong = yield* Effect.flip(
        withClient({ host: server.url, apiKey: Redacted.make("nope") }, (m) => m.search("x", 5))
      )
      assert.deepStrictEqual([wrong.status, wrong.code], [403, "invalid_api_key"])
      assert.include(wrong.message, "The provided API key is invalid.")
      assert.notInclude(wrong.message, "nope")
    }))

  it.scopedLive("an unreachable server, a task past its deadline and an index made by someone else", () =>
    Effect.gen(function*() {
      const down = yield* Effect.flip(withClient({ host: "http://127.0.0.1:9" }, (m) => m.health))
      assert.strictEqual(down.reason, "unreachable")
      assert.strictEqual(down.message, "cannot reach Meilisearch at http://127.0.0.1:9 (ECONNREFUSED)")

      const stuck = yield* meiliReplay({ stuckTask: (type) => type === "settingsUpdate" })
      const late = yield* Effect.flip(
        withClient({ host: stuck.url, taskTimeout: "300 millis" }, (m) => m.prepare({}))
      )
      assert.strictEqual(late.reason, "deadline")
      assert.include(late.message, "did not finish within 300ms")

      const other = yield* meiliReplay()
      yield* withClient({ host: other.url }, (m) => m.prepare({}))
      other.indexes.get("passages")!.primaryKey = "movie_id"
      const foreign = yield* Effect.flip(withClient({ host: other.url }, (m) => m.prepare({})))
      assert.include(foreign.message, "has primary key movie_id, not key")
    }))

  it.scopedLive("retrieves with showRankingScore, cmn locales for Chinese and hybrid when configured", () =>
    Effect.gen(function*() {
      const server = yield* meiliReplay()
      yield* withClient({ host: server.url }, (m) =>
        Effect.zipRight(
          m.prepare({ chinese: true }),
          m.add([
            { id: "DEV_0", title: "战国无双3", text: "《战国无双3》是由光荣和ω-force开发的" },
            { id: "p2", title: "Other", text: "something else" }
          ])
        ))
      const layer = (options: Partial<MeiliOptions>) =>
        MeiliRetriever.layer({ host: server.url, index: "passages", ...options }).pipe(
          Layer.provide(NodeHttpClient.layerUndici)
        )
      const found = yield* Effect.flatMap(Retriever, (r) => r.search(request(["战国无双3是谁开发的"], { topK: 1 })))
        .pipe(Effect.provide(layer({ embedder: "bge", semanticRatio: 0.3 })))
      assert.deepStrictEqual(found.map((p) => [p.id, p.source]), [["DEV_0", "meilisearch:passages"]])
      assert.isAbove(found[0]!.score, 0)
      const searches = server.requests.filter((r) => r.path.endsWith("/search"))
      const body = searches[0]!.body as Record<string, unknown>
      assert.strictEqual(body.showRankingScore, true)
      assert.deepStrictEqual(body.locales, ["cmn"])
      assert.deepStrictEqual(body.hybrid, { embedder: "bge", semanticRatio: 0.3 })
      assert.strictEqual(body.limit, 50)
      yield* Effect.flatMap(Retriever, (r) => r.search(request(["english words"]))).pipe(Effect.provide(layer({})))
      const english = server.requests.filter((r) => r.path.endsWith("/search"))[1]!.body as Record<string, unknown>
      assert.isUndefined(english.locales)
      assert.isUndefined(english.hybrid)
    }))

  it.scopedLive("a reply without the documented shape is refused, and search failures are RetrievalErrors", () =>
    Effect.gen(function*() {
      const broken = yield* localServer(() => ({ status: 200, body: { hits: [{ id: 1, title: "no text" }] } }))
      const error = yield* Effect.flip(withClient({ host: broken.url }, (m) => m.search("x", 5)))
      assert.strictEqual(error.reason, "reply")
      assert.include(error.message, "unexpected reply from Meilisearch")
      const failed = yield* Effect.flip(
        Effect.flatMap(Retriever, (r) => r.search(request(["x"]))).pipe(
          Effect.provide(
            MeiliRetriever.layer({ host: "http://127.0.0.1:9", index: "passages", retries: 0 }).pipe(
              Layer.provide(NodeHttpClient.layerUndici)
            )
          )
        )
      )
      assert.strictEqual(failed._tag, "RetrievalError")
      assert.include(failed.message, "cannot reach Meilisearch")
    }))

  it.effect("settings: DEEPNOTE_MEILI_* decoded and checked, sources merged field by field, then the defaults", () =>
    Effect.gen(function*() {
      const env = (entries: Record<string, string>) =>
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))
      const defaults = yield* meiliOptionsConfig.pipe(env({}))
      assert.deepStrictEqual([defaults.host, defaults.index, defaults.apiKey], [
        "http://127.0.0.1:7700",
        "deepnote",
        undefined
      ])
      const set = yield* meiliEnvironment.pipe(
        env({ DEEPNOTE_MEILI_HOST: "https://search.example:7700", DEEPNOTE_MEILI_TASK_TIMEOUT: "5 minutes" })
      )
      const merged = mergeMeiliSettings([{ index: "from-flag" }, { index: "from-file", host: "http://file:7700" }, set])
      assert.deepStrictEqual([merged.host, merged.index], ["http://file:7700", "from-flag"])
      assert.isTrue(Duration.equals(Duration.decode(merged.taskTimeout!), Duration.minutes(5)))
      for (
        const [key, value, message] of [
          ["DEEPNOTE_MEILI_HOST", "localhost:7700", "DEEPNOTE_MEILI_HOST: expected an http(s) URL"],
          ["DEEPNOTE_MEILI_INDEX", "two words", "DEEPNOTE_MEILI_INDEX: an index uid has only"],
          ["DEEPNOTE_MEILI_SEMANTIC_RATIO", "1.5", "DEEPNOTE_MEILI_SEMANTIC_RATIO: must be between 0 and 1"],
          ["DEEPNOTE_MEILI_BATCH_SIZE", "0", "DEEPNOTE_MEILI_BATCH_SIZE: must be a positive integer"]
        ] as const
      ) {
        const error = yield* Effect.flip(meiliEnvironment.pipe(env({ [key]: value })))
        assert.include(describeConfigFailure(error), message)
      }
    }))
})
