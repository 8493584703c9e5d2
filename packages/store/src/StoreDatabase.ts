import { Migrator, SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Duration, Effect, Layer } from "effect"
import { StoreError } from "./Domain/Errors.js"
import { migrations, migrationsTable } from "./Migrations.js"
import { inspectStoreFile } from "./StoreFile.js"

export interface StoreDatabaseOptions {
  /** Path of the SQLite file (created with its directory when missing), or `:memory:`. */
  readonly filename: string
  /** How long a write waits for another process's write lock before failing. Default 10 s. */
  readonly busyTimeout?: Duration.DurationInput
}

const runMigrations = Migrator.make({})

const initialise = (busyTimeout: Duration.DurationInput) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`PRAGMA busy_timeout = ${Math.round(Duration.toMillis(busyTimeout))}`)
    yield* sql`PRAGMA foreign_keys = ON`
    yield* sql`PRAGMA synchronous = NORMAL`
    yield* runMigrations({ loader: Migrator.fromRecord(migrations(sql)), table: migrationsTable })
  }))

/**
 * The store's SQLite connection: checks the file first (a foreign or corrupted file fails with `StoreError` and is
 * left untouched), then opens it in WAL mode with a busy timeout and foreign keys on, and applies migrations.
 */
export const layer = (
  options: StoreDatabaseOptions
): Layer.Layer<SqlClient.SqlClient | SqliteClient.SqliteClient, StoreError> =>
  Layer.unwrapEffect(
    inspectStoreFile(options.filename).pipe(
      Effect.as(
        initialise(options.busyTimeout ?? "10 seconds").pipe(
          Layer.provideMerge(SqliteClient.layer({ filename: options.filename })),
          Layer.mapError((cause) =>
            new StoreError({ message: `cannot open the store ${options.filename}: ${String(cause)}`, cause })
          )
        )
      )
    )
  )
