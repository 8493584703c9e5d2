import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/** Background document uploads of the HTTP app: their status outlives a restart. */
export const v3 = (sql: SqlClient.SqlClient) =>
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
    yield* userVersion(sql, 3)
  })
