import { type LaterMigration, laterMigrationEntry } from "@deepnote-rag/core"
import type { SqlClient, SqlError } from "@effect/sql"
import { MetaKey } from "./IndexSchema.js"

/** A collection migration from 6 on (`LaterMigration`). */
export type CollectionMigration = LaterMigration<SqlClient.SqlClient, SqlError.SqlError>

/**
 * The migrator's entry for a collection migration from 6 on: the file keeps the lowest schema a build must know in
 * `meta.oldest_schema` and its version in `meta.schema_version`.
 */
export const collectionMigrationEntry = (sql: SqlClient.SqlClient, migration: CollectionMigration) =>
  laterMigrationEntry(sql, migration, {
    oldestSchema: (id) => sql`UPDATE meta SET value = ${String(id)} WHERE key = ${MetaKey.oldestSchema}`,
    schemaVersion: (id) => sql`UPDATE meta SET value = ${String(id)} WHERE key = ${MetaKey.schemaVersion}`
  })
