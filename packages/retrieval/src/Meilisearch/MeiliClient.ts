import { withoutCredentials } from "@deepnote-rag/core"
import { detectLanguage } from "@deepnote-rag/text"
import { HttpClient } from "@effect/platform"
import { type ConfigError, Context, Effect, Layer } from "effect"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import type { Candidate } from "../Retrieval/RetrievalPipeline.js"
import { meiliKey, primaryKey, toMeiliDocument } from "./MeiliDocuments.js"
import { MeiliError } from "./MeiliError.js"
import { meiliCall } from "./MeiliHttp.js"
import { EnqueuedTask, Health, IndexInfo, IndexStats, MeiliSearchReply, Version } from "./MeiliReplies.js"
import { type MeiliOptions, meiliOptionsConfig } from "./MeiliSettings.js"
import { waitForTask } from "./MeiliTasks.js"

export type { MeiliOptions } from "./MeiliSettings.js"

/** What a run's manifest and a summary record of the backend: the server without credentials and the index. */
export interface MeiliTargetInfo {
  readonly host: string
  readonly index: string
}

export const rankingRules = ["words", "typo", "proximity", "attribute", "sort", "exactness"]

/** One Meilisearch index over HTTP: its settings, batched uploads waiting for each task, search. */
export interface MeiliClientService {
  readonly target: MeiliTargetInfo
  /** `GET /health`: fails with a one-line `MeiliError` when the server cannot be reached or is not available. */
  readonly health: Effect.Effect<void, MeiliError>
  /** The server's version (`GET /version`). */
  readonly version: Effect.Effect<string, MeiliError>
  /**
   * Creates the index (primary key `key`) when it does not exist, refuses one with another primary key, and sets
   * searchableAttributes [title, text], displayedAttributes, rankingRules and — `chinese: true` — `localizedAttributes`
   * cmn on title and text (`false` clears them; absent leaves them as they are). Waits for every task.
   */
  readonly prepare: (settings: { readonly chinese?: boolean | undefined }) => Effect.Effect<void, MeiliError>
  /** Uploads passages (same id: replaced) in tasks of `batchSize`, waiting for each; returns the number indexed. */
  readonly add: (documents: ReadonlyArray<CorpusDocument>) => Effect.Effect<number, MeiliError>
  readonly remove: (ids: ReadonlyArray<string>) => Effect.Effect<void, MeiliError>
  /** Documents in the index (`GET /indexes/{uid}/stats`). */
  readonly count: Effect.Effect<number, MeiliError>
  /** Keyword (or hybrid) search with `_rankingScore`; Chinese queries are sent with `locales: ["cmn"]`. */
  readonly search: (query: string, limit: number) => Effect.Effect<ReadonlyArray<Candidate>, MeiliError>
}

const make = (options: MeiliOptions): Effect.Effect<MeiliClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const shown = withoutCredentials(options.host)
    const call = meiliCall(client, {
      host: options.host,
      apiKey: options.apiKey,
      timeout: options.timeout ?? "30 seconds",
      retries: options.retries ?? 3,
      backoff: "200 millis"
    })
    const index = `/indexes/${encodeURIComponent(options.index)}`
    const wait = { deadline: options.taskTimeout ?? "120 seconds" }
    const enqueue = (method: "POST" | "PATCH", path: string, body: unknown) =>
      Effect.flatMap(call(method, path, EnqueuedTask, body), (task) => waitForTask(call, shown, task, wait))

    const ensureIndex = call("GET", index, IndexInfo).pipe(
      Effect.catchIf(
        (e) => e.code === "index_not_found",
        () =>
          enqueue("POST", "/indexes", { uid: options.index, primaryKey }).pipe(
            // another process created it meanwhile: what it holds is checked below like any existing index
            Effect.catchIf((e) => e.code === "index_already_exists", () => Effect.void),
            Effect.zipRight(call("GET", index, IndexInfo))
          )
      ),
      Effect.filterOrFail(
        (info) => info.primaryKey === null || info.primaryKey === primaryKey,
        (info) =>
          new MeiliError({
            reason: "api",
            message:
              `Meilisearch index ${options.index} at ${shown} has primary key ${info.primaryKey}, not ${primaryKey}:` +
              " it was not made by DeepNote; choose another index (--meili-index)"
          })
      )
    )

    return MeiliClient.of({
      target: { host: shown, index: options.index },
      health: call("GET", "/health", Health).pipe(
        Effect.filterOrFail(
          (h) => h.status === "available",
          (h) => new MeiliError({ reason: "unreachable", message: `Meilisearch at ${shown} is ${h.status}` })
        ),
        Effect.asVoid,
        Effect.withSpan("MeiliClient.health")
      ),
      version: call("GET", "/version", Version).pipe(
        Effect.map((v) => v.pkgVersion),
        Effect.withSpan("MeiliClient.version")
      ),
      prepare: Effect.fn("MeiliClient.prepare")(function*(settings) {
        yield* Effect.annotateCurrentSpan({ "deepnote.meili.index": options.index })
        yield* ensureIndex
        yield* enqueue("PATCH", `${index}/settings`, {
          searchableAttributes: ["title", "text"],
          displayedAttributes: ["id", "title", "text"],
          rankingRules,
          ...(settings.chinese === undefined ? {} : {
            localizedAttributes: settings.chinese
              ? [{ attributePatterns: ["title", "text"], locales: ["cmn"] }]
              : []
          })
        })
      }),
      add: Effect.fn("MeiliClient.add")(function*(documents) {
        yield* Effect.annotateCurrentSpan({
          "deepnote.meili.index": options.index,
          "deepnote.documents": documents.length
        })
        const size = options.batchSize ?? 1000
        let indexed = 0
        for (let start = 0; start < documents.length; start += size) {
          const batch = documents.slice(start, start + size).map(toMeiliDocument)
          const task = yield* enqueue("POST", `${index}/documents?primaryKey=${primaryKey}`, batch)
          const count = task.details?.indexedDocuments
          indexed += typeof count === "number" ? count : batch.length
        }
        return indexed
      }),
      remove: Effect.fn("MeiliClient.remove")(function*(ids) {
        yield* enqueue("POST", `${index}/documents/delete-batch`, ids.map(meiliKey))
      }),
      count: call("GET", `${index}/stats`, IndexStats).pipe(
        Effect.map((s) => s.numberOfDocuments),
        Effect.withSpan("MeiliClient.count")
      ),
      search: Effect.fn("MeiliClient.search")(function*(query, limit) {
        const zh = detectLanguage(query) === "zh"
        const reply = yield* call("POST", `${index}/search`, MeiliSearchReply, {
          q: query,
          limit,
          showRankingScore: true,
          attributesToRetrieve: ["id", "title", "text"],
          ...(zh ? { locales: ["cmn"] } : {}),
          ...(options.embedder === undefined
            ? {}
            : { hybrid: { embedder: options.embedder, semanticRatio: options.semanticRatio ?? 0.5 } })
        })
        return reply.hits.map((h): Candidate => ({
          id: String(h.id),
          title: h.title,
          text: h.text,
          score: h._rankingScore
        }))
      })
    })
  })

export class MeiliClient extends Context.Tag("@deepnote-rag/retrieval/MeiliClient")<MeiliClient, MeiliClientService>() {
  /** Builds the client for one index over the `HttpClient` in context (no request is made until a method is called). */
  static readonly make = make

  static readonly layer = (options: MeiliOptions): Layer.Layer<MeiliClient, never, HttpClient.HttpClient> =>
    Layer.effect(MeiliClient, MeiliClient.make(options))

  /** Options from `DEEPNOTE_MEILI_*` (see `meiliOptionsConfig`). */
  static readonly layerConfig: Layer.Layer<MeiliClient, ConfigError.ConfigError, HttpClient.HttpClient> = Layer
    .unwrapEffect(Effect.map(meiliOptionsConfig, MeiliClient.layer))
}
