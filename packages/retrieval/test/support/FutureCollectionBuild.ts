import { Migrator, SqlClient, type SqlError } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { defaultCollectionSettings } from "../../src/Domain/Ingest.js"
import { migrationsTable, migrationsWith } from "../../src/Index/CollectionMigrations.js"
import type { LaterCollectionMigration } from "../../src/Index/LaterCollectionMigration.js"

/** A later collection migration (`LaterCollectionMigration`) a future build might ship, numbered `id`. */
export const laterMigration = (
  id: number,
  olderBuildsMayUse: boolean,
  run: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError.SqlError>
): LaterCollectionMigration => ({ id, name: `future_${id}`, olderBuildsMayUse, run: (sql) => Effect.asVoid(run(sql)) })

/**
 * Migrates a collection file as a future build would: this build's migrations and `later` after them, through the
 * registry (`migrationsWith`) and the migrator collections use, over a client of its own.
 */
export const migrateAsFutureBuild = (file: string, ...later: ReadonlyArray<LaterCollectionMigration>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Migrator.make({})({
      loader: Migrator.fromRecord(migrationsWith(sql, defaultCollectionSettings, "2027-01-01T00:00:00.000Z", later)),
      table: migrationsTable
    })).pipe(Effect.provide(SqliteClient.layer({ filename: file })), Effect.orDie)
