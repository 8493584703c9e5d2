import type { SqlClient } from "@effect/sql"
import { type StoreMigration, storeMigrationEntry } from "./Migrations/StoreMigrationEntry.js"
import { v10 } from "./Migrations/V10IngestJobOwners.js"
import { v11 } from "./Migrations/V11Passages.js"
import { v12 } from "./Migrations/V12CompactValues.js"
import { v13 } from "./Migrations/V13RunsByDataset.js"
import { v14 } from "./Migrations/V14Readers.js"
import { v15 } from "./Migrations/V15NewestRuns.js"
import { applicationId, v1 } from "./Migrations/V1Initial.js"
import { v2 } from "./Migrations/V2RunOwners.js"
import { v3 } from "./Migrations/V3IngestJobs.js"
import { v4 } from "./Migrations/V4Sequences.js"
import { v5 } from "./Migrations/V5JournalTokens.js"
import { v6 } from "./Migrations/V6DropCaches.js"
import { v7 } from "./Migrations/V7RunLeases.js"
import { v8 } from "./Migrations/V8Queue.js"
import { v9 } from "./Migrations/V9TenantQuotas.js"

export { applicationId }

/** The table the migrator records applied migrations in. */
export const migrationsTable = "deepnote_migrations"

/** The migrations up to 14, each recording its own version (`userVersion`); frozen. */
const firstMigrations = (sql: SqlClient.SqlClient) => ({
  "1_initial": v1(sql),
  "2_run_owners": v2(sql),
  "3_ingest_jobs": v3(sql),
  "4_per_run_sequences": v4(sql),
  "5_journal_tokens": v5(sql),
  "6_drop_caches": v6(sql),
  "7_run_leases": v7(sql),
  "8_queue": v8(sql),
  "9_tenant_quotas": v9(sql),
  "10_ingest_job_owners": v10(sql),
  "11_passages": v11(sql),
  "12_compact_values": v12(sql),
  "13_runs_by_dataset": v13(sql),
  "14_readers": v14(sql)
})

/** The last of `firstMigrations`. */
const lastFirstMigration = 14

/**
 * The migrations from 15 on, in order. Each says whether builds that do not know it may keep opening the store
 * (`olderBuildsMayOpen` of `LaterMigration` in `@deepnote-rag/core`: replicas and workers of the previous release
 * during a rolling upgrade); the registry records that and the SQLite header's version for it.
 */
export const laterMigrations: ReadonlyArray<StoreMigration> = [v15]

/**
 * The store's migrations with `later` after the first ones, by `<id>_<name>`, for `Migrator.fromRecord`. Each is
 * written once for both dialects (`sql.onDialectOrElse` where they differ); on SQLite each one ends by setting
 * `PRAGMA user_version` to its id inside the migrator's transaction.
 */
export const migrationsWith = (sql: SqlClient.SqlClient, later: ReadonlyArray<StoreMigration>) => ({
  ...firstMigrations(sql),
  ...Object.fromEntries(later.map((migration) => storeMigrationEntry(sql, migration)))
})

/** This build's migrations (`migrationsWith` the `laterMigrations`). */
export const migrations = (sql: SqlClient.SqlClient) => migrationsWith(sql, laterMigrations)

/**
 * The newest schema version this build knows. A store recording a higher one is refused, and left untouched, unless it
 * records (`deepnote_readers`) that builds of this version may open it.
 */
export const schemaVersion: number = laterMigrations.at(-1)?.id ?? lastFirstMigration
