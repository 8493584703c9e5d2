import { Migrator, SqlClient, type SqlError } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { defaultCollectionSettings } from "../../src/Domain/Ingest.js"
import type { CollectionMigration } from "../../src/Index/CollectionMigrationEntry.js"
import { migrationsTable, migrationsWith } from "../../src/Index/CollectionMigrations.js"

/** A collection migration a future build might ship, numbered `id`. */
export const laterMigration = (
  id: number,
  olderBuildsMayOpen: boolean,
  run: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError.SqlError>
): CollectionMigration => ({ id, name: `future_${id}`, olderBuildsMayOpen, run: (sql) => Effect.asVoid(run(sql)) })

/**
 * Migrates a collection file as a future build would: this build's migrations and `later` after them, through the
 * registry (`migrationsWith`) and the migrator collections use, over a client of its own.
 */
export const migrateAsFutureBuild = (file: string, ...later: ReadonlyArray<CollectionMigration>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Migrator.make({})({
      loader: Migrator.fromRecord(migrationsWith(sql, defaultCollectionSettings, "2027-01-01T00:00:00.000Z", later)),
      table: migrationsTable
    })).pipe(Effect.provide(SqliteClient.layer({ filename: file })), Effect.orDie)
