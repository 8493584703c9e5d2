import { errorCode, errorMessage, innermostCause, isSqliteCorruptionCode } from "@deepnote-rag/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Migrator, SqlClient, SqlSchema } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Clock, Effect, Either, ExecutionStrategy, Exit, Schema, Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/**
 * Opening the LLM cache's SQLite file: migrations, and recovery from a file that cannot be a cache (a cache is
 * disposable, so a damaged one is moved aside and replaced, never repaired or allowed to fail a call).
 */
const migrationsTable = "deepnote_migrations"

const migrations = (sql: SqlClient.SqlClient) => ({
  // IF NOT EXISTS: a cache file from before migrations already has exactly this table and is adopted as it is
  "1_llm_cache": sql`CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID`
})

/** The message of the innermost error of a chain (`SqlError` → SQLite's error). */
export const messageOf = (error: unknown): string => errorMessage(innermostCause(error))

/** SQLite says the file is damaged or not a database. */
const isDamage = (error: unknown): boolean => isSqliteCorruptionCode(errorCode(innermostCause(error)))

/** Why a file could not be opened as a cache: damaged (moved aside) or something else (left alone, cache off). */
type OpenProblem = { readonly damaged: boolean; readonly reason: string }

const sqliteMagic = "SQLite format 3\u0000"

/** A non-empty file that does not start like an SQLite database. */
const notSqlite = (file: string): boolean => {
  const stat = Fs.statSync(file, { throwIfNoEntry: false })
  if (stat === undefined || !stat.isFile() || stat.size === 0) return false
  const header = Buffer.alloc(16)
  const fd = Fs.openSync(file, "r")
  try {
    return Fs.readSync(fd, header, 0, 16, 0) < 16 || header.toString("latin1") !== sqliteMagic
  } finally {
    Fs.closeSync(fd)
  }
}

const client = (file: string, readonly: boolean) =>
  SqliteClient.make({ filename: file, ...(readonly ? { readonly: true, disableWAL: true } : {}) }).pipe(
    Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make)
  )

/** Tables that an LLM cache does not have. */
const foreignTables = (sql: SqlClient.SqlClient) =>
  SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ name: Schema.String }),
    execute: () => sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
  })(undefined).pipe(
    Effect.map((rows) => rows.map((r) => r.name).filter((name) => name !== "llm_cache" && name !== migrationsTable))
  )

/** Opens the cache file in `scope`: SQLite in WAL mode, migrations applied, other applications' files refused. */
const connect = <S>(file: string, make: Effect.Effect<S, never, SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const found = file === ":memory:" ? { content: false } : yield* Effect.try(() => {
      const stat = Fs.statSync(file, { throwIfNoEntry: false })
      if (stat !== undefined && !stat.isFile()) return { damaged: false, reason: "not a regular file" }
      Fs.mkdirSync(Path.dirname(Path.resolve(file)), { recursive: true })
      if (notSqlite(file)) return { damaged: true, reason: "not an SQLite database" }
      return { content: stat !== undefined && stat.size > 0 }
    })
    if ("damaged" in found) return yield* Effect.fail<OpenProblem>(found)
    // looked at read-only first, so another application's database is left exactly as it was
    const foreign = found.content ? yield* Effect.scoped(Effect.flatMap(client(file, true), foreignTables)) : []
    if (foreign.length > 0) {
      return yield* Effect.fail<OpenProblem>({
        damaged: false,
        reason: `not an LLM cache (tables: ${foreign.join(", ")})`
      })
    }
    const sql = yield* client(file, false)
    yield* sql`PRAGMA synchronous = NORMAL`
    yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations(sql)), table: migrationsTable }).pipe(
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    return yield* make.pipe(Effect.provideService(SqlClient.SqlClient, sql))
  }).pipe(
    Effect.catchAll((e) =>
      Effect.fail<OpenProblem>("damaged" in e ? e : { damaged: isDamage(e), reason: messageOf(e) })
    ),
    // better-sqlite3 throws while the client is built (`journal_mode = WAL` on a damaged file)
    Effect.catchAllDefect((defect) =>
      Effect.fail<OpenProblem>({ damaged: isDamage(defect), reason: messageOf(defect) })
    )
  )

/** `connect` in a scope of its own, closed again when opening fails (so a damaged file can be moved). */
const attempt = <S>(file: string, make: Effect.Effect<S, never, SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const own = yield* Scope.fork(scope, ExecutionStrategy.sequential)
    const opened = yield* Effect.either(Scope.extend(connect(file, make), own))
    if (Either.isLeft(opened)) yield* Scope.close(own, Exit.void)
    return opened
  })

/** `<file>.corrupt-<UTC time>`, with the write-ahead log moved beside it and the shared-memory index removed. */
const moveAside = (file: string) =>
  Effect.gen(function*() {
    const stamp = new Date(yield* Clock.currentTimeMillis).toISOString().replace(/[-:.]/gu, "")
    const aside = `${file}.corrupt-${stamp}`
    yield* Effect.try(() => {
      Fs.renameSync(file, aside)
      if (Fs.existsSync(`${file}-wal`)) Fs.renameSync(`${file}-wal`, `${aside}-wal`)
      Fs.rmSync(`${file}-shm`, { force: true })
    })
    return aside
  })

/**
 * The cache at `file` for the life of the scope. A cache is disposable: a damaged or non-SQLite file is moved aside
 * (one warning naming both files) and an empty cache starts; a file that cannot be used otherwise (a directory,
 * another application's database) is left alone and caching is off, with one warning.
 */
export const openCacheFile = <S>(
  file: string,
  make: Effect.Effect<S, never, SqlClient.SqlClient>,
  disabled: S
): Effect.Effect<S, never, Scope.Scope> =>
  Effect.gen(function*() {
    const first = yield* attempt(file, make)
    if (Either.isRight(first)) return first.right
    if (first.left.damaged) {
      const aside = yield* Effect.either(moveAside(file))
      if (Either.isRight(aside)) {
        yield* Effect.logWarning(
          `LLM cache ${file} is damaged (${first.left.reason}): moved it to ${aside.right}; starting an empty cache`
        )
        const second = yield* attempt(file, make)
        if (Either.isRight(second)) return second.right
        yield* Effect.logWarning(`LLM cache ${file} cannot be created (${second.left.reason}); caching is off`)
        return disabled
      }
    }
    yield* Effect.logWarning(`LLM cache ${file} cannot be used (${first.left.reason}); caching is off`)
    return disabled
  })
