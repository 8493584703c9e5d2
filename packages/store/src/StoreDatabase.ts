import type { Home } from "@deepnote-rag/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import { Migrator, SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, Schema } from "effect"
import * as Path from "node:path"
import { StoreError } from "./Domain/Errors.js"
import { corruptionDiagnosis } from "./internal/corruption.js"
import { attachDiagnosis } from "./internal/diagnosis.js"
import { makeQueries } from "./internal/query.js"
import { mayOpen, newerStore } from "./internal/readers.js"
import { causeMessage, DbInt } from "./internal/sql.js"
import { makeSqliteConnection } from "./internal/sqliteConnection.js"
import { SqliteDirect } from "./internal/sqliteDirect.js"
import { migrations, migrationsTable, schemaVersion } from "./Migrations.js"
import { readersTable } from "./Migrations/V14Readers.js"
import { StoreConfig } from "./StoreConfig.js"
import { inspectStoreFile } from "./StoreFile.js"
import { type InvalidStoreUrl, parseStoreUrl, type PostgresStoreUrl, type StoreUrl } from "./StoreUrl.js"

export interface StoreDatabaseOptions {
  /** `sqlite:PATH` or a path (created with its directory when missing), `sqlite::memory:`, or `postgres://…`. */
  readonly url: string | StoreUrl
  /** SQLite: how long a write waits for another process's write lock before failing. Default 10 s. */
  readonly busyTimeout?: Duration.DurationInput | undefined
}

const Count = Schema.Struct({ n: DbInt })

const OldestSchema = Schema.Struct({ n: Schema.NullOr(DbInt) })

/**
 * Refuses a database whose migrations table records a migration this build does not know, unless the store says builds
 * of this one's schema may open it (`internal/readers.ts`); changes nothing.
 */
const refuseNewerDatabase = (name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { findOne } = makeQueries(sql)
    const hasTable = findOne({
      table: "catalog",
      action: "looking for the store's tables",
      Request: Schema.String,
      Result: Count,
      execute: (table) =>
        sql.onDialectOrElse({
          pg: () =>
            sql`SELECT count(*) AS n FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_name = ${table}`,
          orElse: () => sql`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${table}`
        })
    })
    const exists = (table: string) => Effect.map(hasTable(table), Option.exists((row) => row.n > 0))
    if (!(yield* exists(migrationsTable))) return
    const latest = yield* findOne({
      table: migrationsTable,
      action: "reading the schema version",
      Request: Schema.Void,
      Result: Count,
      execute: () => sql`SELECT coalesce(max(migration_id), 0) AS n FROM ${sql(migrationsTable)}`
    })(undefined)
    const version = Option.match(latest, { onNone: () => 0, onSome: (row) => row.n })
    if (version <= schemaVersion) return
    const oldest = (yield* exists(readersTable))
      ? yield* findOne({
        table: readersTable,
        action: "reading which builds may open the store",
        Request: Schema.Void,
        Result: OldestSchema,
        execute: () => sql`SELECT max(oldest_schema) AS n FROM ${sql(readersTable)}`
      })(undefined)
      : Option.none()
    const oldestSchema = Option.getOrUndefined(Option.flatMapNullable(oldest, (row) => row.n))
    if (!mayOpen(version, oldestSchema)) return yield* newerStore(name, version, oldestSchema)
  })

const runMigrations = Migrator.make({})

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error
    ? `${String(error.message)}${"cause" in error ? causeMessage(error.cause) : ""}`
    : String(error)

const migrationFailure = (name: string) => (error: unknown): StoreError =>
  error instanceof StoreError
    ? error
    : new StoreError({ message: `cannot migrate the store ${name}: ${describe(error)}`, cause: error })

/** Applies the migrations; a failing migration (a defect of the migrator) becomes a `StoreError` naming the store. */
const migrate = (name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* refuseNewerDatabase(name)
    yield* runMigrations({ loader: Migrator.fromRecord(migrations(sql)), table: migrationsTable }).pipe(
      // two processes opening a fresh Postgres database can race to create the migrations table; the loser retries
      // and then waits on the migrator's table lock
      Effect.retry({ times: 2, while: (e) => e._tag === "SqlError" }),
      Effect.catchAllDefect((defect) => Effect.fail(defect)),
      Effect.mapError(migrationFailure(name))
    )
  })

const sqlite = (filename: string, busyTimeout: Duration.DurationInput) =>
  Layer.scopedContext(Effect.gen(function*() {
    const state = yield* inspectStoreFile(filename)
    const readOnly = state._tag === "Store" && state.readOnly
    const { client, direct } = yield* makeSqliteConnection({ filename, readonly: readOnly }).pipe(
      Effect.catchAllDefect((cause) =>
        Effect.fail(
          new StoreError({
            message: state._tag === "Fresh"
              ? `cannot create the store ${filename}: is ${Path.dirname(filename)} read-only?${causeMessage(cause)}`
              : `cannot open the store ${filename}${causeMessage(cause)}`,
            cause
          })
        )
      )
    )
    yield* Effect.gen(function*() {
      yield* client.unsafe(`PRAGMA busy_timeout = ${Math.round(Duration.toMillis(busyTimeout))}`)
      yield* client`PRAGMA foreign_keys = ON`
      yield* client`PRAGMA synchronous = NORMAL`
    }).pipe(
      Effect.mapError((e) => new StoreError({ message: `cannot open the store ${filename}${causeMessage(e.cause)}` }))
    )
    if (state._tag !== "Memory") attachDiagnosis(client, yield* corruptionDiagnosis(filename))
    // a read-only store needs no migration (checked above): reads work, writes fail with a StoreError
    if (!readOnly) yield* Effect.provideService(migrate(filename), SqlClient.SqlClient, client)
    // the run's hot writers look for `SqliteDirect` (optional: a Postgres store has none)
    return Context.make(SqlClient.SqlClient, client).pipe(Context.add(SqliteDirect, direct))
  })).pipe(Layer.provide(Reactivity.layer))

const postgres = (url: PostgresStoreUrl) =>
  Layer.scopedContext(Effect.gen(function*() {
    const client = yield* PgClient.make({ url: url.url, applicationName: "deepnote" }).pipe(
      Effect.mapError((e) =>
        new StoreError({ message: `cannot reach the Postgres store ${url.display}${causeMessage(e.cause)}` })
      )
    )
    yield* Effect.provideService(migrate(url.display), SqlClient.SqlClient, client)
    return Context.make(SqlClient.SqlClient, client)
  })).pipe(Layer.provide(Reactivity.layer))

/**
 * The store's database, chosen by URL: an SQLite file (checked first without writing — a foreign, corrupted or newer
 * file fails with `StoreError` and is left untouched; a file this process cannot write is opened read-only), opened in
 * WAL mode with a busy timeout and foreign keys on; or a Postgres database. Migrations are applied on open.
 */
export const layer = (
  options: StoreDatabaseOptions
): Layer.Layer<SqlClient.SqlClient, StoreError | InvalidStoreUrl> =>
  Layer.unwrapEffect(
    Effect.map(
      parseStoreUrl(options.url),
      (url) => url._tag === "Sqlite" ? sqlite(url.filename, options.busyTimeout ?? "10 seconds") : postgres(url)
    )
  )

/** The database named by `StoreConfig.layerConfig` (`DEEPNOTE_STORE`, else `<home>/deepnote.sqlite`). */
export const layerConfig: Layer.Layer<SqlClient.SqlClient, StoreError | InvalidStoreUrl, Home> = Layer.unwrapEffect(
  Effect.map(StoreConfig, (settings) => layer(settings))
).pipe(Layer.provide(StoreConfig.layerConfig))
