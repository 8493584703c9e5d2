import * as Reactivity from "@effect/experimental/Reactivity"
import { Migrator, SqlClient, SqlSchema } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Clock, Effect, Option, Schema, type Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { IndexError } from "../Domain/Errors.js"
import { type CollectionSettings, defaultCollectionSettings } from "../Domain/Ingest.js"
import { applicationId, latestMigration, migrations, migrationsTable } from "./CollectionMigrations.js"
import { type FtsIndex, makeFtsIndex } from "./FtsIndex.js"
import { indexFailure } from "./IndexFailure.js"
import { MetaKey } from "./IndexSchema.js"
import type { TermScoresMemory } from "./TermScoresMemory.js"

export interface OpenOptions {
  /** Create the file (and its directory) when missing. */
  readonly create: boolean
  /** Settings of a new collection; an existing file keeps its own. */
  readonly settings?: Partial<CollectionSettings> | undefined
  /** Where its searches keep phrase scores: the process's, shared with its other open collections. */
  readonly termScores: TermScoresMemory
}

const sqliteMagic = "SQLite format 3\u0000"

/**
 * Refuses, before SQLite touches it, a path that is not a regular file or does not start like an SQLite database.
 * Succeeds with whether the file has content (else it is new).
 */
const checkFile = (file: string, create: boolean) =>
  Effect.try({
    try: (): { readonly problem: string } | { readonly content: boolean } => {
      const stat = Fs.statSync(file, { throwIfNoEntry: false })
      if (stat === undefined) {
        if (create) Fs.mkdirSync(Path.dirname(file), { recursive: true })
        return create ? { content: false } : { problem: "the collection file does not exist" }
      }
      if (!stat.isFile()) {
        return { problem: stat.isDirectory() ? "is a directory, not a collection file" : "not a regular file" }
      }
      if (stat.size === 0) return { content: false }
      const header = Buffer.alloc(16)
      const fd = Fs.openSync(file, "r")
      let read = 0
      try {
        read = Fs.readSync(fd, header, 0, 16, 0)
      } finally {
        Fs.closeSync(fd)
      }
      return read === 16 && header.toString("latin1") === sqliteMagic
        ? { content: true }
        : { problem: "not an SQLite database (a damaged or foreign file)" }
    },
    catch: indexFailure(file, "opening")
  }).pipe(
    Effect.flatMap((found) =>
      "problem" in found ? Effect.fail(new IndexError({ file, reason: found.problem })) : Effect.succeed(found.content)
    )
  )

/** A client on the file for the life of the scope; `readonly` never writes (not even the journal mode). */
const client = (file: string, readonly: boolean) =>
  SqliteClient.make({ filename: file, ...(readonly ? { readonly: true, disableWAL: true } : {}) }).pipe(
    Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make)
  )

/** What an opened file holds before migrating. */
const probe = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const { application_id } = yield* SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ application_id: Schema.Number }),
      execute: () => sql`PRAGMA application_id`
    })(undefined)
    const tables = (yield* SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ name: Schema.String }),
      execute: () => sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
    })(undefined)).map((r) => r.name)
    const metaValue = (key: string) =>
      tables.includes("meta")
        ? Effect.map(
          SqlSchema.findOne({
            Request: Schema.String,
            Result: Schema.Struct({ value: Schema.String }),
            execute: (key) => sql`SELECT value FROM meta WHERE key = ${key}`
          })(key),
          Option.map((r) => r.value)
        )
        : Effect.succeed(Option.none<string>())
    const schemaVersion = yield* metaValue(MetaKey.schemaVersion)
    const applied = tables.includes(migrationsTable)
      ? yield* SqlSchema.single({
        Request: Schema.Void,
        Result: Schema.Struct({ latest: Schema.NullOr(Schema.Number) }),
        execute: () => sql`SELECT max(migration_id) AS latest FROM ${sql(migrationsTable)}`
      })(undefined)
      : { latest: null }
    const latestApplied = applied.latest ?? 0
    // which builds may open the file matters only for a file newer than this build
    const oldestSchema = latestApplied > latestMigration
      ? Option.filter(Option.map(yield* metaValue(MetaKey.oldestSchema), Number), Number.isInteger)
      : Option.none<number>()
    return { applicationId: application_id, tables, schemaVersion, oldestSchema, latestApplied }
  })

type Probe = Effect.Effect.Success<ReturnType<typeof probe>>

type Decision = { readonly state: "fresh" | "legacy" | "migrated" } | { readonly refused: string }

const legacyTables = ["meta", "documents", "fts", "ingest_progress"]

/**
 * Decides how to migrate: `fresh` (empty file), `legacy` (a collection from before migrations: schema version 1
 * without a migrations table, adopted as migration 1 without a rebuild), `migrated`; anything else is refused.
 */
const classify = (found: Probe): Decision => {
  if (found.applicationId !== 0 && found.applicationId !== applicationId) {
    return { refused: `not a DeepNote collection (SQLite application_id 0x${found.applicationId.toString(16)})` }
  }
  if (found.latestApplied > latestMigration && !Option.exists(found.oldestSchema, (n) => n <= latestMigration)) {
    const needs = Option.match(found.oldestSchema, {
      onNone: () => "",
      onSome: (n) => `, which needs a build that knows ${n}`
    })
    return {
      refused:
        `written by a newer DeepNote (collection schema ${found.latestApplied}${needs}; this build reads up to ` +
        `${latestMigration})`
    }
  }
  if (found.tables.includes(migrationsTable)) return { state: "migrated" }
  if (found.tables.length === 0) return { state: "fresh" }
  if (Option.isSome(found.schemaVersion) && legacyTables.every((t) => found.tables.includes(t))) {
    return found.schemaVersion.value === "1"
      ? { state: "legacy" }
      : { refused: `unknown collection schema version ${found.schemaVersion.value}` }
  }
  return { refused: `not a DeepNote collection (tables: ${found.tables.slice(0, 5).join(", ")})` }
}

const runMigrator = Migrator.make({})

const storedSettings = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ value: Schema.Literal("porter", "none") }),
    execute: (key) => sql`SELECT value FROM meta WHERE key = ${key}`
  })(MetaKey.stemming).pipe(
    Effect.map(Option.match({
      onNone: () => defaultCollectionSettings,
      onSome: (r): CollectionSettings => ({ stemming: r.value })
    }))
  )

/**
 * Opens a collection file for the life of the scope: one `SqliteClient` (WAL, prepared statements cached), a cheap
 * check (header, schema, application id; the full `quick_check` runs before the first write, see `FtsIndex`), then
 * the migrations. A file that is not a collection, is damaged, or was written by a newer build is refused with an
 * `IndexError` naming it.
 */
export const openCollection = (file: string, options: OpenOptions): Effect.Effect<FtsIndex, IndexError, Scope.Scope> =>
  Effect.gen(function*() {
    const content = yield* checkFile(file, options.create)
    // looked at read-only first, so a file that is refused is left exactly as it was
    const decided: Decision = content
      ? classify(yield* Effect.scoped(Effect.flatMap(client(file, true), probe)))
      : { state: "fresh" }
    if ("refused" in decided) return yield* new IndexError({ file, reason: decided.refused })
    const sql = yield* client(file, false)
    yield* sql`PRAGMA synchronous = NORMAL`
    yield* sql`PRAGMA cache_size = -65536`
    yield* sql`PRAGMA temp_store = MEMORY`
    const migrate = (loader: Migrator.Loader) =>
      Effect.provideService(runMigrator({ loader, table: migrationsTable }), SqlClient.SqlClient, sql)
    if (decided.state === "legacy") yield* migrate(Migrator.fromRecord({ "1_initial": Effect.void }))
    const settings: CollectionSettings = { ...defaultCollectionSettings, ...options.settings }
    const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* migrate(Migrator.fromRecord(migrations(sql, settings, createdAt)))
    return yield* makeFtsIndex(sql, file, yield* storedSettings(sql), options.termScores)
  }).pipe(
    Effect.catchAll((failure) => Effect.fail(indexFailure(file, "opening")(failure))),
    // better-sqlite3 throws while the client is built (e.g. `journal_mode = WAL` on a damaged file)
    Effect.catchAllDefect((defect) => Effect.fail(indexFailure(file, "opening")(defect)))
  )
