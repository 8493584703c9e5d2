import type { SqlClient, SqlError } from "@effect/sql"
import { Effect } from "effect"
import { MetaKey } from "./IndexSchema.js"

/**
 * A collection migration from 6 on: its body, and whether builds that do not know it may keep using a file it was
 * applied to (an older replica or worker sharing a home during a rolling upgrade). The registry
 * (`laterCollectionMigrationEntry`), not the body, records both `meta.schema_version` and — when older builds may not
 * use the file — `meta.oldest_schema`, so no migration can forget either.
 */
export interface LaterCollectionMigration {
  /** Its number: the one after the previous migration's. */
  readonly id: number
  /** Its name in the migrations table (`<id>_<name>`). */
  readonly name: string
  /**
   * Whether builds that do not know this migration may keep using the file: `true` for an index or a table only newer
   * builds read; `false` for a table they would not keep up to date or a kept value they would not drop. Required:
   * every migration says.
   */
  readonly olderBuildsMayUse: boolean
  /** The schema change. */
  readonly run: (sql: SqlClient.SqlClient) => Effect.Effect<void, SqlError.SqlError>
}

/**
 * The migrator's entry for a later migration: its body, then — in the migrator's transaction, so atomically with the
 * schema it describes — the file's schema version and, when older builds may not use the file, the lowest schema a
 * build must know.
 */
export const laterCollectionMigrationEntry = (sql: SqlClient.SqlClient, migration: LaterCollectionMigration) =>
  [
    `${migration.id}_${migration.name}`,
    Effect.gen(function*() {
      yield* migration.run(sql)
      if (!migration.olderBuildsMayUse) {
        yield* sql`UPDATE meta SET value = ${String(migration.id)} WHERE key = ${MetaKey.oldestSchema}`
      }
      yield* sql`UPDATE meta SET value = ${String(migration.id)} WHERE key = ${MetaKey.schemaVersion}`
    })
  ] as const
