import Sqlite from "better-sqlite3"

/**
 * The schema of the last release before this one (schema version 3), statement by statement as its migrations
 * created it, to prove that such stores open and are upgraded. Do not edit: it is history.
 */
const legacySchema = [
  `CREATE TABLE sweeps (
      id TEXT PRIMARY KEY NOT NULL,
      label TEXT,
      grid TEXT NOT NULL,
      created_at TEXT NOT NULL)`,
  `CREATE TABLE runs (
      id TEXT PRIMARY KEY NOT NULL,
      sweep_id TEXT REFERENCES sweeps(id),
      status TEXT NOT NULL CHECK (status IN ('created','running','interrupted','failed','completed')),
      manifest TEXT NOT NULL,
      message TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT)`,
  `CREATE INDEX runs_sweep ON runs(sweep_id)`,
  `CREATE TABLE items (
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
      PRIMARY KEY (run_id, item_id))`,
  `CREATE UNIQUE INDEX items_order ON items(run_id, seq)`,
  `CREATE INDEX items_status ON items(run_id, status, seq)`,
  `CREATE TABLE journal (
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
      FOREIGN KEY (run_id, item_id) REFERENCES items(run_id, item_id) ON DELETE CASCADE)`,
  `CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      item_id TEXT NOT NULL,
      event TEXT NOT NULL,
      created_at TEXT NOT NULL)`,
  `CREATE INDEX events_run ON events(run_id, seq)`,
  `CREATE TABLE caches (
      namespace TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (namespace, key)) WITHOUT ROWID`,
  `CREATE TABLE tenants (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      quota TEXT,
      created_at TEXT NOT NULL)`,
  `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY NOT NULL,
      tenant_id TEXT NOT NULL REFERENCES tenants(id),
      hash TEXT NOT NULL UNIQUE,
      label TEXT,
      created_at TEXT NOT NULL,
      revoked_at TEXT)`,
  `CREATE INDEX api_keys_tenant ON api_keys(tenant_id)`,
  `CREATE TABLE run_owners (
      run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      tenant_id TEXT NOT NULL,
      auto_resume INTEGER NOT NULL DEFAULT 1,
      created_at TEXT NOT NULL)`,
  `CREATE INDEX run_owners_tenant ON run_owners(tenant_id, created_at)`,
  `CREATE TABLE ingest_jobs (
      id TEXT PRIMARY KEY NOT NULL,
      tenant_id TEXT NOT NULL,
      collection TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued','running','done','failed','interrupted')),
      received INTEGER NOT NULL,
      added INTEGER NOT NULL DEFAULT 0,
      skipped INTEGER NOT NULL DEFAULT 0,
      message TEXT,
      created_at TEXT NOT NULL,
      finished_at TEXT)`,
  `CREATE INDEX ingest_jobs_created ON ingest_jobs(created_at)`
]

/** Creates a version-3 store with two runs whose events interleave, as the previous build would have left it. */
export const writeLegacyStore = (filename: string): void => {
  const db = new Sqlite(filename)
  try {
    db.pragma("journal_mode = WAL")
    db.exec(`CREATE TABLE IF NOT EXISTS "deepnote_migrations" (
  migration_id integer PRIMARY KEY NOT NULL,
  created_at datetime NOT NULL DEFAULT current_timestamp,
  name VARCHAR(255) NOT NULL
)`)
    db.transaction(() => {
      for (const statement of legacySchema) db.exec(statement)
      db.pragma(`application_id = ${0x444e5354}`)
      db.pragma("user_version = 3")
      const migration = db.prepare("INSERT INTO deepnote_migrations (migration_id, name) VALUES (?, ?)")
      for (const [id, name] of [[1, "initial"], [2, "run_owners"], [3, "ingest_jobs"]] as const) migration.run(id, name)
    })()
  } finally {
    db.close()
  }
}
