import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"

/** The one-row table migration 14 adds (`oldest_schema`: the lowest schema a build must know to open the store). */
export const readersTable = "deepnote_readers"

/**
 * Which builds may open the store: a one-row table, `deepnote_readers`, holding the lowest schema version a build must
 * know to read and write the store correctly. Until now a build refused every store with a migration it did not know,
 * so during a rolling upgrade an older replica or worker that restarted after a newer one had migrated the shared store
 * could not open it, even when the migration only added an index. From here on a build opens a newer store when its
 * own schema version is at least this value (`internal/readers.ts`); a migration that older builds cannot live with (a
 * column they would not fill, a table they would not keep up to date) sets it to its own id, one they can (an index, a
 * table only newer builds use) leaves it — the registry does this from what each later migration declares
 * (`StoreMigrationEntry.ts`). Builds before this one do not read it and refuse every newer store, as before.
 */
export const v14 = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    yield* sql`CREATE TABLE deepnote_readers (oldest_schema INTEGER NOT NULL)`
    yield* sql`INSERT INTO deepnote_readers (oldest_schema) VALUES (14)`
    yield* userVersion(sql, 14)
  })
