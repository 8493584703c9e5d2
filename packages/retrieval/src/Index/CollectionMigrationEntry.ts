import { type LaterMigration, laterMigrationEntry } from "@deepnote-rag/core"
import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import { MetaKey } from "./IndexSchema.js"

/** A collection migration from 6 on (`LaterMigration`). */
export type CollectionMigration = LaterMigration<SqlClient.SqlClient, SqlError.SqlError>

/**
 * The migrator's entry for a collection migration from 6 on: after its body, `meta.oldest_schema` (when older builds
 * may not open the file) and `meta.schema_version`.
 */
export const collectionMigrationEntry = (sql: SqlClient.SqlClient, migration: CollectionMigration) =>
  laterMigrationEntry(
    sql,
    migration,
    Effect.gen(function*() {
      if (!migration.olderBuildsMayOpen) {
        yield* sql`UPDATE meta SET value = ${String(migration.id)} WHERE key = ${MetaKey.oldestSchema}`
      }
      yield* sql`UPDATE meta SET value = ${String(migration.id)} WHERE key = ${MetaKey.schemaVersion}`
    })
  )
