import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Runs a statement on SQLite only (pragmas). */
export const onSqlite = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  sql.onDialectOrElse({ sqlite: () => Effect.asVoid(effect), orElse: () => Effect.void })

/**
 * Records the schema version in the SQLite file's header (`PRAGMA user_version`), inside the migrator's transaction, so
 * the file names its version atomically with its schema and a newer file is refused before anything is opened for
 * writing. Postgres has no header: there the migrations table alone records it.
 */
export const userVersion = (sql: SqlClient.SqlClient, version: number) =>
  onSqlite(sql, sql.unsafe(`PRAGMA user_version = ${version}`))

/** Column types that differ: SQLite's `REAL` is 8 bytes, Postgres's 4, so Postgres uses `DOUBLE PRECISION`. */
export const types = (sql: SqlClient.SqlClient) => ({
  real: sql.onDialectOrElse({ pg: () => sql.literal("DOUBLE PRECISION"), orElse: () => sql.literal("REAL") })
})
