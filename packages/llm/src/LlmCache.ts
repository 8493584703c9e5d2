import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import * as Path from "node:path"
import { messageOf, openCacheFile } from "./LlmCacheFile.js"

/** A stored reply: one text per prompt (chat: exactly one). */
export const CachedReply = Schema.Struct({
  texts: Schema.Array(Schema.String),
  finishReason: Schema.optional(Schema.String),
  model: Schema.String,
  promptTokens: Schema.Number,
  completionTokens: Schema.Number
})
export type CachedReply = typeof CachedReply.Type

const encodeReply = Schema.encode(Schema.parseJson(CachedReply))
const decodeReply = Schema.decodeUnknownOption(Schema.parseJson(CachedReply))

/** The content-addressed LLM response cache (shared across runs; switchable off). It never fails a call. */
export interface LlmCacheService {
  readonly enabled: boolean
  /** The stored reply, or none (also when the cache cannot be read). */
  readonly get: (key: string) => Effect.Effect<Option.Option<CachedReply>>
  /** Stores a reply unless the key is already there (a failed write is logged and forgotten). */
  readonly put: (key: string, reply: CachedReply) => Effect.Effect<void>
  readonly size: Effect.Effect<number>
}

const Row = Schema.Struct({ key: Schema.String, model: Schema.String, reply: Schema.String, created_at: Schema.Number })

/**
 * The cache over an open client (`file` names it in warnings). Failures are misses (reads) or no-ops (writes), each
 * kind logged once: a broken cache never fails or floods a run.
 */
const make = (file: string): Effect.Effect<LlmCacheService, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ reply: Schema.String }),
      execute: (key) => sql`SELECT reply FROM llm_cache WHERE key = ${key}`
    })
    const insert = SqlSchema.void({
      Request: Row,
      execute: (row) => sql`INSERT INTO llm_cache ${sql.insert(row)} ON CONFLICT (key) DO NOTHING`
    })
    const count = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ n: Schema.Number }),
      execute: () => sql`SELECT count(*) AS n FROM llm_cache`
    })
    const warned = new Set<string>()
    const guard = <A, E>(what: string, effect: Effect.Effect<A, E>, fallback: A): Effect.Effect<A> =>
      Effect.catchAll(effect, (cause) => {
        if (warned.has(what)) return Effect.succeed(fallback)
        warned.add(what)
        const warning = `LLM cache ${file}: ${what} failed (${messageOf(cause)}); calls go on uncached`
        return Effect.as(Effect.logWarning(warning), fallback)
      })
    return {
      enabled: true,
      get: (key) =>
        guard("read", Effect.map(select(key), Option.flatMap((row) => decodeReply(row.reply))), Option.none()),
      put: (key, reply) =>
        guard(
          "write",
          Effect.gen(function*() {
            const created_at = yield* Clock.currentTimeMillis
            yield* insert({ key, model: reply.model, reply: yield* encodeReply(reply), created_at })
          }),
          undefined
        ),
      size: guard("count", Effect.map(count(undefined), (r) => r.n), 0)
    }
  })

const disabled: LlmCacheService = {
  enabled: false,
  get: () => Effect.succeed(Option.none()),
  put: () => Effect.void,
  size: Effect.succeed(0)
}

export class LlmCache extends Context.Tag("@deepnote-rag/llm/LlmCache")<LlmCache, LlmCacheService>() {
  /** The cache over an open `SqlClient` whose database has the `llm_cache` table (see `layer`). */
  static readonly make = make

  /** Where a home keeps its cache: `<root>/llm-cache.sqlite`. */
  static readonly fileIn = (root: string): string => Path.join(root, "llm-cache.sqlite")

  /** On disk at `file` (SQLite, WAL, one row per key); `undefined` turns caching off. */
  static readonly layer = (options: { readonly file: string | undefined }): Layer.Layer<LlmCache> =>
    options.file === undefined
      ? Layer.succeed(LlmCache, disabled)
      : Layer.scoped(LlmCache, openCacheFile(options.file, make(options.file), disabled))

  /** An empty in-memory SQLite cache, for tests. */
  static readonly layerTest: Layer.Layer<LlmCache> = Layer.scoped(
    LlmCache,
    openCacheFile(":memory:", make(":memory:"), disabled)
  )
}
