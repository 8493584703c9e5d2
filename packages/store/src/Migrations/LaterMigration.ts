import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"
import { readersTable } from "./V14Readers.js"

/**
 * A migration from 15 on: its body, and what builds that do not know it may do with a store it was applied to
 * (replicas and workers of the previous release during a rolling upgrade). The registry (`laterMigrationEntry`), not
 * the body, records both: the SQLite header's `user_version`, and — when older builds may not open the store —
 * `deepnote_readers.oldest_schema`, so no migration can forget either.
 */
export interface LaterMigration {
  /** Its number: the one after the previous migration's. */
  readonly id: number
  /** Its name in the migrations table (`<id>_<name>`). */
  readonly name: string
  /**
   * Whether builds that do not know this migration may keep opening the store: `true` for an index or a table only
   * newer builds use; `false` for a column they would leave empty, a table they would not keep up to date, or data in
   * a form they cannot read. Required: every migration says.
   */
  readonly olderBuildsMayOpen: boolean
  /** The schema change, written once for both dialects (`sql.onDialectOrElse` where they differ). */
  readonly run: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError.SqlError>
}

/**
 * The migrator's entry for a later migration: its body, then — in the migrator's transaction, so atomically with the
 * schema it describes — the lowest schema a build must know (when older builds may not open the store) and the
 * version in the SQLite header.
 */
export const laterMigrationEntry = (sql: SqlClient.SqlClient, migration: LaterMigration) =>
  [
    `${migration.id}_${migration.name}`,
    Effect.gen(function*() {
      yield* migration.run(sql)
      if (!migration.olderBuildsMayOpen) {
        yield* sql`UPDATE ${sql(readersTable)} SET oldest_schema = ${migration.id}`
      }
      yield* userVersion(sql, migration.id)
    })
  ] as const
