import { detectLanguage } from "@deepnote/text"
import { Config, type ConfigError, Context, Effect, Layer, Option, ParseResult, Redacted, Schema } from "effect"
import { type EnqueuedTaskPromise, Meilisearch } from "meilisearch"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import type { Candidate } from "../Retrieval/RetrievalPipeline.js"
import { meiliKey, MeiliSearchReply, toMeiliDocument } from "./MeiliDocuments.js"
import { MeiliError } from "./MeiliError.js"

export interface MeiliOptions {
  /** e.g. `http://127.0.0.1:7700`. */
  readonly host: string
  readonly apiKey?: Redacted.Redacted | undefined
  /** The index uid (one per collection; prefer one per language). */
  readonly index: string
  /** Hybrid search: the embedder configured on the index, and the share of semantic results (0…1). */
  readonly embedder?: string | undefined
  readonly semanticRatio?: number | undefined
  /** Documents per upload task. Default 1000. */
  readonly batchSize?: number
  /** How long to wait for one task. Default 120 s. */
  readonly taskTimeoutMs?: number
}

const rankingRules = ["words", "typo", "proximity", "attribute", "sort", "exactness"]

/** The official `meilisearch` client bound to one index: settings, batched uploads with task polling, search. */
export interface MeiliClientService {
  /** searchableAttributes [title, text], rankingRules, and `localizedAttributes` cmn for a Chinese index. */
  readonly configure: (settings?: { readonly chinese?: boolean }) => Effect.Effect<void, MeiliError>
  /** Uploads passages in batches, waiting for each task; returns the number indexed. */
  readonly add: (documents: ReadonlyArray<CorpusDocument>) => Effect.Effect<number, MeiliError>
  readonly remove: (ids: ReadonlyArray<string>) => Effect.Effect<void, MeiliError>
  /** Keyword (or hybrid) search with `_rankingScore`; Chinese queries are sent with `locales: ["cmn"]`. */
  readonly search: (query: string, limit: number) => Effect.Effect<ReadonlyArray<Candidate>, MeiliError>
}

const make = (options: MeiliOptions): Effect.Effect<MeiliClientService> =>
  Effect.sync(() => {
    const client = new Meilisearch({
      host: options.host,
      ...(options.apiKey === undefined ? {} : { apiKey: Redacted.value(options.apiKey) })
    })
    const index = client.index(options.index)
    const call = <A>(what: string, f: () => Promise<A>) =>
      Effect.tryPromise({
        try: f,
        catch: (cause) =>
          new MeiliError({
            message: `meilisearch ${what} (${options.host}, index ${options.index}): ${
              cause instanceof Error ? cause.message : String(cause)
            }`,
            cause
          })
      })
    const waitFor = (what: string, enqueue: () => EnqueuedTaskPromise) =>
      call(what, () => enqueue().waitTask({ timeout: options.taskTimeoutMs ?? 120_000, interval: 50 })).pipe(
        Effect.filterOrFail(
          (task) => task.status === "succeeded",
          (task) =>
            new MeiliError({
              message: `meilisearch ${what}: task ${task.uid} ${task.status}: ${
                task.error?.message ?? "no error message"
              }`
            })
        )
      )
    const decodeReply = Schema.decodeUnknown(MeiliSearchReply)

    return MeiliClient.of({
      configure: Effect.fn("MeiliClient.configure")(function*(settings = {}) {
        yield* waitFor("settings update", () =>
          index.updateSettings({
            searchableAttributes: ["title", "text"],
            displayedAttributes: ["id", "title", "text"],
            rankingRules,
            ...(settings.chinese
              ? { localizedAttributes: [{ attributePatterns: ["title", "text"], locales: ["cmn"] }] }
              : {})
          }))
      }),
      add: Effect.fn("MeiliClient.add")(function*(documents) {
        const size = options.batchSize ?? 1000
        let indexed = 0
        for (let start = 0; start < documents.length; start += size) {
          const batch = documents.slice(start, start + size).map(toMeiliDocument)
          const task = yield* waitFor("document upload", () => index.addDocuments(batch, { primaryKey: "key" }))
          indexed += typeof task.details?.indexedDocuments === "number" ? task.details.indexedDocuments : batch.length
        }
        return indexed
      }),
      remove: Effect.fn("MeiliClient.remove")(function*(ids) {
        yield* waitFor("document deletion", () => index.deleteDocuments(ids.map(meiliKey)))
      }),
      search: Effect.fn("MeiliClient.search")(function*(query, limit) {
        const zh = detectLanguage(query) === "zh"
        const reply = yield* call("search", () =>
          index.search(query, {
            limit,
            showRankingScore: true,
            attributesToRetrieve: ["id", "title", "text"],
            ...(zh ? { locales: ["cmn"] } : {}),
            ...(options.embedder === undefined
              ? {}
              : { hybrid: { embedder: options.embedder, semanticRatio: options.semanticRatio ?? 0.5 } })
          }))
        const decoded = yield* decodeReply(reply).pipe(
          Effect.mapError((e) =>
            new MeiliError({
              message: `unexpected meilisearch search reply: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
            })
          )
        )
        return decoded.hits.map((h): Candidate => ({
          id: String(h.id),
          title: h.title,
          text: h.text,
          score: h._rankingScore
        }))
      })
    })
  })

export class MeiliClient extends Context.Tag("@deepnote/retrieval/MeiliClient")<MeiliClient, MeiliClientService>() {
  /** Builds the client for one index (no request is made until a method is called). */
  static readonly make = make

  static readonly layer = (options: MeiliOptions): Layer.Layer<MeiliClient> =>
    Layer.effect(MeiliClient, MeiliClient.make(options))

  /**
   * From `DEEPNOTE_MEILI_HOST` (default http://127.0.0.1:7700), `DEEPNOTE_MEILI_API_KEY`, `DEEPNOTE_MEILI_INDEX`
   * (default deepnote), `DEEPNOTE_MEILI_EMBEDDER`, `DEEPNOTE_MEILI_SEMANTIC_RATIO`.
   */
  static readonly layerConfig: Layer.Layer<MeiliClient, ConfigError.ConfigError> = Layer.unwrapEffect(
    Effect.gen(function*() {
      const host = yield* Config.string("DEEPNOTE_MEILI_HOST").pipe(Config.withDefault("http://127.0.0.1:7700"))
      const apiKey = yield* Config.option(Config.redacted("DEEPNOTE_MEILI_API_KEY"))
      const index = yield* Config.string("DEEPNOTE_MEILI_INDEX").pipe(Config.withDefault("deepnote"))
      const embedder = yield* Config.option(Config.string("DEEPNOTE_MEILI_EMBEDDER"))
      const semanticRatio = yield* Config.option(Config.number("DEEPNOTE_MEILI_SEMANTIC_RATIO"))
      return MeiliClient.layer({
        host,
        index,
        apiKey: Option.getOrUndefined(apiKey),
        embedder: Option.getOrUndefined(embedder),
        semanticRatio: Option.getOrUndefined(semanticRatio)
      })
    })
  )
}
