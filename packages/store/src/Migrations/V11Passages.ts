import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Passages and long texts (notes) stored once per question (`internal/passageRefs.ts`): journal responses, events and
 * results written from now on refer to them instead of copying them. Rows written before hold their passages inline and stay valid.
 * Keyed like the event log (by run, not by item row: events may be logged for any item id of a run).
 */
export const v11 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE passages (
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      item_id TEXT NOT NULL,
      hash TEXT NOT NULL,
      id TEXT NOT NULL,
      source TEXT NOT NULL,
      title TEXT NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (run_id, item_id, hash))`
    yield* sql`CREATE TABLE texts (
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      item_id TEXT NOT NULL,
      hash TEXT NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (run_id, item_id, hash))`
    yield* userVersion(sql, 11)
  })
