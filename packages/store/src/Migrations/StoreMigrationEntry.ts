import { type LaterMigration, laterMigrationEntry } from "@deepnote-rag/core"
import type { SqlClient, SqlError } from "@effect/sql"
import { userVersion } from "./Dialect.js"
import { readersTable } from "./V14Readers.js"

/** A store migration from 15 on (`LaterMigration`), written once for both dialects. */
export type StoreMigration = LaterMigration<SqlClient.SqlClient, SqlError.SqlError>

/**
 * The migrator's entry for a store migration from 15 on: the store keeps the lowest schema a build must know in
 * `deepnote_readers.oldest_schema` and its version in the SQLite header's `user_version`.
 */
export const storeMigrationEntry = (sql: SqlClient.SqlClient, migration: StoreMigration) =>
  laterMigrationEntry(sql, migration, {
    oldestSchema: (id) => sql`UPDATE ${sql(readersTable)} SET oldest_schema = ${id}`,
    schemaVersion: (id) => userVersion(sql, id)
  })
