import { type LaterMigration, laterMigrationEntry } from "@deepnote-rag/core"
import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import { userVersion } from "./Dialect.js"
import { readersTable } from "./V14Readers.js"

/** A store migration from 15 on (`LaterMigration`), written once for both dialects. */
export type StoreMigration = LaterMigration<SqlClient.SqlClient, SqlError.SqlError>

/**
 * The migrator's entry for a store migration from 15 on: after its body, the lowest schema a build must know
 * (`deepnote_readers.oldest_schema`, when older builds may not open the store) and the SQLite header's `user_version`.
 */
export const storeMigrationEntry = (sql: SqlClient.SqlClient, migration: StoreMigration) =>
  laterMigrationEntry(
    sql,
    migration,
    Effect.gen(function*() {
      if (!migration.olderBuildsMayOpen) {
        yield* sql`UPDATE ${sql(readersTable)} SET oldest_schema = ${migration.id}`
      }
      yield* userVersion(sql, migration.id)
    })
  )
