import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/**
 * Smaller stores (`internal/storedJson.ts`, `internal/passageRefs.ts`):
 * - passages and long texts are stored once per run (they were once per question: about 40 % of a HotpotQA run's
 *   passage rows were the same passage read by another question), keyed by their content hash;
 * - the large JSON columns (journal responses, events, questions, results) and passage and text bodies hold deflated
 *   bytes from now on. SQLite keeps each value's own type (a TEXT column holds the new BLOBs beside the old text), so
 *   only the two tables are rebuilt; Postgres converts those columns to `BYTEA`, old values to their UTF-8 bytes, which
 *   read as they did (JSON text never starts with the format bytes 0 or 1).
 * Bodies copied from the per-question tables become JSON strings (`json_quote`, `to_json`), as `storedJson` reads them.
 */
export const v12 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const { blob, jsonText } = sql.onDialectOrElse({
      pg: () => ({
        blob: sql.literal("BYTEA"),
        jsonText: (column: string) => sql.literal(`convert_to(to_json(min(${column}))::text, 'UTF8')`)
      }),
      orElse: () => ({
        blob: sql.literal("BLOB"),
        jsonText: (column: string) => sql.literal(`json_quote(min(${column}))`)
      })
    })
    yield* sql`CREATE TABLE run_passages (
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      hash TEXT NOT NULL,
      id TEXT NOT NULL,
      source TEXT NOT NULL,
      title TEXT NOT NULL,
      text ${blob} NOT NULL,
      PRIMARY KEY (run_id, hash))`
    yield* sql`INSERT INTO run_passages (run_id, hash, id, source, title, text)
      SELECT run_id, hash, min(id), min(source), min(title), ${jsonText("text")} FROM passages GROUP BY run_id, hash`
    yield* sql`DROP TABLE passages`
    yield* sql`ALTER TABLE run_passages RENAME TO passages`
    yield* sql`CREATE TABLE run_texts (
      run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      hash TEXT NOT NULL,
      text ${blob} NOT NULL,
      PRIMARY KEY (run_id, hash))`
    yield* sql`INSERT INTO run_texts (run_id, hash, text)
      SELECT run_id, hash, ${jsonText("text")} FROM texts GROUP BY run_id, hash`
    yield* sql`DROP TABLE texts`
    yield* sql`ALTER TABLE run_texts RENAME TO texts`
    yield* sql.onDialectOrElse({
      pg: () =>
        Effect.forEach([
          ["journal", "response"],
          ["events", "event"],
          ["items", "question"],
          ["items", "result"]
        ], ([table, column]) =>
          sql.unsafe(
            `ALTER TABLE ${table} ALTER COLUMN ${column} TYPE BYTEA USING convert_to(${column}, 'UTF8')`
          ), { discard: true }),
      orElse: () => Effect.void
    })
    yield* userVersion(sql, 12)
  })
