import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { onSqlite, types, userVersion } from "./Dialect.js"

/** `PRAGMA application_id` of a DeepNote store: "DNST". Any other non-zero id is another application's file. */
export const applicationId = 0x444e5354

/**
 * The first schema. The SQLite statements are those every existing store was created with (same text, so the same
 * `sqlite_master`); Postgres gets the equivalent types. `events` and `caches` are replaced by later migrations.
 */
export const v1 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const { real } = types(sql)
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
      elapsed_ms ${real},
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
      latency_ms ${real} NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (run_id, item_id, seq),
      FOREIGN KEY (run_id, item_id) REFERENCES items(run_id, item_id) ON DELETE CASCADE)`
    yield* sql`CREATE TABLE events (
      seq ${
      sql.onDialectOrElse({
        pg: () => sql.literal("BIGSERIAL PRIMARY KEY"),
        orElse: () => sql.literal("INTEGER PRIMARY KEY AUTOINCREMENT")
      })
    },
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
      PRIMARY KEY (namespace, key))${
      sql.onDialectOrElse({ pg: () => sql.literal(""), orElse: () => sql.literal(" WITHOUT ROWID") })
    }`
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
    yield* onSqlite(sql, sql.unsafe(`PRAGMA application_id = ${applicationId}`))
    yield* userVersion(sql, 1)
  })
