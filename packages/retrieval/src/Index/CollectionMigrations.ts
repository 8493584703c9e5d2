import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { CollectionSettings } from "../Domain/Ingest.js"
import { type CollectionMigration, collectionMigrationEntry } from "./CollectionMigrationEntry.js"
import { createStatements, MetaKey, tokenizerFor } from "./IndexSchema.js"

/** The table the migrator records applied migrations in. */
export const migrationsTable = "deepnote_migrations"

/** `PRAGMA application_id` of a collection file ("DNCL"): tells a collection from any other SQLite file. */
export const applicationId = 0x444e434c

/** The migrations up to 5, each recording its own number; frozen. */
const firstMigrations = (sql: SqlClient.SqlClient, settings: CollectionSettings, createdAt: string) => ({
  /** The layout from before migrations existed (such files are adopted at this version, see `CollectionDatabase`). */
  "1_initial": Effect.gen(function*() {
    for (const statement of createStatements(settings)) yield* sql.unsafe(statement)
    const meta: ReadonlyArray<readonly [string, string]> = [
      [MetaKey.schemaVersion, "1"],
      [MetaKey.stemming, settings.stemming],
      [MetaKey.tokenizer, tokenizerFor(settings)],
      [MetaKey.stopWords, "english+chinese (@deepnote-rag/text), removed at index and query time"],
      [MetaKey.chinese, "jieba cutForSearch (index) / cut (query) words + CJK character bigrams"],
      [MetaKey.createdAt, createdAt],
      [MetaKey.documentCount, "0"]
    ]
    yield* sql`INSERT OR REPLACE INTO meta ${sql.insert(meta.map(([key, value]) => ({ key, value })))}`
  }),
  /** Marks the file as a DeepNote collection, so a foreign SQLite file is never mistaken for one. */
  "2_application_id": Effect.gen(function*() {
    yield* sql.unsafe(`PRAGMA application_id = ${applicationId}`)
    yield* sql`UPDATE meta SET value = '2' WHERE key = ${MetaKey.schemaVersion}`
  }),
  /**
   * Dense retrieval: each passage's vector (float32, little-endian) by the passage's rowid. The table is also the
   * progress of embedding (a passage without a row is still to embed) and the truth the ANN file is built from.
   * `vectors_version` counts changes to it, so an ANN file that missed one is rebuilt, never trusted.
   */
  "3_vectors": Effect.gen(function*() {
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS vectors (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)`)
    yield* sql`INSERT OR REPLACE INTO meta ${sql.insert({ key: MetaKey.vectorsVersion, value: "0" })}`
    yield* sql`UPDATE meta SET value = '3' WHERE key = ${MetaKey.schemaVersion}`
  }),
  /**
   * The content fingerprint kept in `meta` (`content_fingerprint`, see `FtsIndex.fingerprint`) is true only while
   * every writer drops it when it changes the passages, which builds before it do not. Raising the schema version
   * makes those builds refuse the file from now on; a fingerprint kept before this migration may have outlived such a
   * write, so it is forgotten (the next run or worker that asks computes it again).
   */
  "4_kept_fingerprint": Effect.gen(function*() {
    yield* sql`DELETE FROM meta WHERE key = ${MetaKey.contentFingerprint}`
    yield* sql`UPDATE meta SET value = '4' WHERE key = ${MetaKey.schemaVersion}`
  }),
  /**
   * Which builds may open the file: `meta.oldest_schema`, the lowest collection schema a build must know to use it.
   * Builds before this one refused every file with a migration they did not know (an older replica restarted after a
   * newer one had migrated a shared home's collection could not open it); from here on a build opens a newer file
   * when its own schema is at least this (`CollectionDatabase`). Builds before this one do not read it.
   */
  "5_oldest_schema": Effect.gen(function*() {
    yield* sql`INSERT OR REPLACE INTO meta ${sql.insert({ key: MetaKey.oldestSchema, value: "5" })}`
    yield* sql`UPDATE meta SET value = '5' WHERE key = ${MetaKey.schemaVersion}`
  })
})

/**
 * The migrations from 6 on, in order. Each says whether builds that do not know it may keep using the file
 * (`olderBuildsMayOpen` of `LaterMigration` in `@deepnote-rag/core`); the registry records that and
 * `meta.schema_version` for it.
 */
export const laterMigrations: ReadonlyArray<CollectionMigration> = []

/** The last of `firstMigrations`. */
const lastFirstMigration = 5

/**
 * The newest migration this build knows; a file with a newer one was written by a newer DeepNote, and is opened only
 * when it records (`meta.oldest_schema`) that builds of this version may use it.
 */
export const latestMigration: number = laterMigrations.at(-1)?.id ?? lastFirstMigration

/**
 * The migrations of a collection file with `later` after the first ones, applied in order by `Migrator` in one
 * transaction. Each sets `meta.schema_version` to its number. `settings` and `createdAt` are only used when the file
 * is new.
 */
export const migrationsWith = (
  sql: SqlClient.SqlClient,
  settings: CollectionSettings,
  createdAt: string,
  later: ReadonlyArray<CollectionMigration>
) => ({
  ...firstMigrations(sql, settings, createdAt),
  ...Object.fromEntries(later.map((migration) => collectionMigrationEntry(sql, migration)))
})

/** This build's migrations (`migrationsWith` the `laterMigrations`). */
export const migrations = (sql: SqlClient.SqlClient, settings: CollectionSettings, createdAt: string) =>
  migrationsWith(sql, settings, createdAt, laterMigrations)
