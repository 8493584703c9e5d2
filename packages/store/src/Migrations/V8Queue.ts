import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Runs executed by queue workers (`deepnote run --enqueue`, `deepnote worker`, the HTTP app):
 * - `runs.execution`: `local` (one process executes the run under its lease) or `queue` (each question is a job);
 * - `runs.queue_generation`: bumped when a queue run is enqueued again (resume, retry of failed questions), so the
 *   new jobs get new ids;
 * - `items.job_id`: the job that holds a running question, so that a second job for the same question (another
 *   generation) never executes it while the first one does, while the same job taken over after its worker died does;
 * - `deepnote_queue`: the job table of `@effect/sql`'s `SqlPersistedQueue`, with its exact columns and indexes. It is
 *   created here, inside the migrator's lock, because the queue's own `CREATE TABLE IF NOT EXISTS` races when two
 *   workers start together on an empty Postgres database.
 */
export const v8 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`ALTER TABLE runs ADD COLUMN execution TEXT NOT NULL DEFAULT 'local'`
    yield* sql`ALTER TABLE runs ADD COLUMN queue_generation INTEGER NOT NULL DEFAULT 0`
    yield* sql`ALTER TABLE items ADD COLUMN job_id TEXT`
    yield* sql.onDialectOrElse({
      pg: () =>
        sql`CREATE TABLE IF NOT EXISTS deepnote_queue (
          sequence SERIAL PRIMARY KEY,
          id VARCHAR(36) NOT NULL,
          queue_name VARCHAR(100) NOT NULL,
          element TEXT NOT NULL,
          completed BOOLEAN NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          last_failure TEXT NULL,
          acquired_at TIMESTAMP NULL,
          acquired_by UUID NULL,
          created_at TIMESTAMP NOT NULL,
          updated_at TIMESTAMP NOT NULL)`,
      orElse: () =>
        sql`CREATE TABLE IF NOT EXISTS deepnote_queue (
          sequence INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL,
          queue_name TEXT NOT NULL,
          element TEXT NOT NULL,
          completed BOOLEAN NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          last_failure TEXT NULL,
          acquired_at DATETIME NULL,
          acquired_by TEXT NULL,
          created_at DATETIME NOT NULL,
          updated_at DATETIME NOT NULL)`
    })
    yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS idx_deepnote_queue_id ON deepnote_queue (id)`
    yield* sql`CREATE INDEX IF NOT EXISTS idx_deepnote_queue_take
      ON deepnote_queue (queue_name, completed, attempts, acquired_at)`
    yield* sql`CREATE INDEX IF NOT EXISTS idx_deepnote_queue_update ON deepnote_queue (sequence, acquired_by)`
    yield* userVersion(sql, 8)
  })
