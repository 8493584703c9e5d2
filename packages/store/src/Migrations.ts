import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** `PRAGMA application_id` of a DeepNote store: "DNST". Any other non-zero id is another application's file. */
export const applicationId = 0x444e5354

/** The table the migrator records applied migrations in. */
export const migrationsTable = "deepnote_migrations"

const v1 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE sweeps (
      id TEXT PRIMARY KEY NOT NULL,
      label TEXT,
      grid TEXT NOT NULL,
      created_at TEXT NOT NULL)`
    yield* sql`CREATE TABLE runs (
      id TEXT PRIMARY KEY NOT NULL,
      sweep_id TEXT REFERENCES sweeps(id),
      status TEXT NOT NULL CHECK (status IN ('created','running','interrupted','failed','completed')),
      manifest TEXT NOT NULL,
      message TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT)`
    yield* sql`CREATE INDEX runs_sweep ON runs(sweep_id)`
    yield* sql`CREATE TABLE items (
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      item_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','running','done','failed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      question TEXT NOT NULL,
      result TEXT,
      error TEXT,
      started_at TEXT,
      finished_at TEXT,
      elapsed_ms REAL,
      PRIMARY KEY (run_id, item_id))`
    yield* sql`CREATE UNIQUE INDEX items_order ON items(run_id, seq)`
    yield* sql`CREATE INDEX items_status ON items(run_id, status, seq)`
    yield* sql`CREATE TABLE journal (
      run_id TEXT NOT NULL,
      item_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      kind TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      response TEXT NOT NULL,
      usage TEXT,
      latency_ms REAL NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (run_id, item_id, seq),
      FOREIGN KEY (run_id, item_id) REFERENCES items(run_id, item_id) ON DELETE CASCADE)`
    yield* sql`CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      item_id TEXT NOT NULL,
      event TEXT NOT NULL,
      created_at TEXT NOT NULL)`
    yield* sql`CREATE INDEX events_run ON events(run_id, seq)`
    yield* sql`CREATE TABLE caches (
      namespace TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (namespace, key)) WITHOUT ROWID`
    yield* sql`CREATE TABLE tenants (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      quota TEXT,
      created_at TEXT NOT NULL)`
    yield* sql`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY NOT NULL,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      hash TEXT NOT NULL UNIQUE,
      label TEXT,
      created_at TEXT NOT NULL,
      revoked_at TEXT)`
    yield* sql`CREATE INDEX api_keys_tenant ON api_keys(tenant_id)`
    yield* sql.unsafe(`PRAGMA application_id = ${applicationId}`)
    yield* sql`PRAGMA user_version = 1`
  })

/** Runs started through the HTTP app: which tenant owns them and whether the server resumes them on startup. */
const v2 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE run_owners (
      run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      tenant_id TEXT NOT NULL,
      auto_resume INTEGER NOT NULL DEFAULT 1,
      created_at TEXT NOT NULL)`
    yield* sql`CREATE INDEX run_owners_tenant ON run_owners(tenant_id, created_at)`
    yield* sql`PRAGMA user_version = 2`
  })

/** Background document uploads of the HTTP app: their status outlives a restart. */
const v3 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE ingest_jobs (
      id TEXT PRIMARY KEY NOT NULL,
      tenant_id TEXT NOT NULL,
      collection TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued','running','done','failed','interrupted')),
      received INTEGER NOT NULL,
      added INTEGER NOT NULL DEFAULT 0,
      skipped INTEGER NOT NULL DEFAULT 0,
      message TEXT,
      created_at TEXT NOT NULL,
      finished_at TEXT)`
    yield* sql`CREATE INDEX ingest_jobs_created ON ingest_jobs(created_at)`
    yield* sql`PRAGMA user_version = 3`
  })

/**
 * The store's migrations, by `<id>_<name>`. Each one ends by setting `PRAGMA user_version` to its id inside the
 * migrator's transaction, so the file records its schema version atomically with the schema.
 */
export const migrations = (sql: SqlClient.SqlClient) => ({
  "1_initial": v1(sql),
  "2_run_owners": v2(sql),
  "3_ingest_jobs": v3(sql)
})

/** The newest schema version this build knows. A store with a higher `user_version` is refused. */
export const schemaVersion = 3
