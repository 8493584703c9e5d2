import Database from "better-sqlite3"
import { Context, Effect, Layer, Option, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** A stored reply: one text per prompt (chat: exactly one). */
export const CachedReply = Schema.Struct({
  texts: Schema.Array(Schema.String),
  finishReason: Schema.optional(Schema.String),
  model: Schema.String,
  promptTokens: Schema.Number,
  completionTokens: Schema.Number
})
export type CachedReply = typeof CachedReply.Type

const encode = Schema.encodeSync(Schema.parseJson(CachedReply))
const decode = Schema.decodeUnknownOption(Schema.parseJson(CachedReply))

export interface LlmCacheService {
  readonly enabled: boolean
  readonly get: (key: string) => Effect.Effect<Option.Option<CachedReply>>
  readonly put: (key: string, reply: CachedReply) => Effect.Effect<void>
  readonly size: Effect.Effect<number>
}

const openSqlite = (file: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      Fs.mkdirSync(Path.dirname(Path.resolve(file)), { recursive: true })
      const db = new Database(file)
      db.pragma("journal_mode = WAL")
      db.pragma("synchronous = NORMAL")
      db.exec(`CREATE TABLE IF NOT EXISTS llm_cache (
        key TEXT PRIMARY KEY,
        model TEXT NOT NULL,
        reply TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) WITHOUT ROWID`)
      return db
    }),
    (db) => Effect.sync(() => db.close())
  )

const makeSqlite = (file: string) =>
  Effect.gen(function*() {
    const db = yield* openSqlite(file)
    const select = db.prepare<[string], { reply: string }>("SELECT reply FROM llm_cache WHERE key = ?")
    const insert = db.prepare<[string, string, string, number]>(
      "INSERT INTO llm_cache (key, model, reply, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(key) DO NOTHING"
    )
    const count = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM llm_cache")
    // A broken cache never fails a call: errors are logged and read as misses.
    const guard = <A>(what: string, f: () => A, fallback: A) =>
      Effect.try(f).pipe(
        Effect.catchAll((cause) => Effect.as(Effect.logWarning(`LLM cache ${what} failed`, cause), fallback))
      )
    return LlmCache.of({
      enabled: true,
      get: (key) =>
        guard("read", () =>
          Option.flatMap(Option.fromNullable(select.get(key)), (row) => decode(row.reply)), Option.none()),
      put: (key, reply) =>
        guard("write", () =>
          void insert.run(key, reply.model, encode(reply), Date.now()), undefined),
      size: guard("count", () => count.get()?.n ?? 0, 0)
    })
  })

const makeMemory = Effect.sync(() => {
  const store = new Map<string, CachedReply>()
  return LlmCache.of({
    enabled: true,
    get: (key) => Effect.sync(() => Option.fromNullable(store.get(key))),
    put: (key, reply) => Effect.sync(() => void store.set(key, reply)),
    size: Effect.sync(() => store.size)
  })
})

/** The content-addressed LLM response cache (shared across runs; switchable off). */
export class LlmCache extends Context.Tag("@deepnote/llm/LlmCache")<LlmCache, LlmCacheService>() {
  /** On disk: SQLite in WAL mode, one row per key. */
  static readonly layerSqlite = (file: string) => Layer.scoped(LlmCache, makeSqlite(file))
  static readonly layerMemory = Layer.effect(LlmCache, makeMemory)
  static readonly layerDisabled = Layer.succeed(
    LlmCache,
    LlmCache.of({
      enabled: false,
      get: () => Effect.succeed(Option.none()),
      put: () => Effect.void,
      size: Effect.succeed(0)
    })
  )
}
