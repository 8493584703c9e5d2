import { defaultRunConfig } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { SqlClient, type SqlError } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect, type Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { RunManifest } from "../src/index.js"
import { migrationsTable, migrationsWith } from "../src/Migrations.js"
import type { StoreMigration } from "../src/Migrations/StoreMigrationEntry.js"

/** A fresh directory under the OS temp dir, removed when the scope closes. */
export const tempDir = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-store-" })
)
  .pipe(Effect.provide(NodeFileSystem.layer), Effect.orDie)

/** An id no other test of a suite uses (suites share one database). */
export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}`

export const manifest = (overrides: Partial<ConstructorParameters<typeof RunManifest>[0]> = {}) =>
  new RunManifest({
    config: defaultRunConfig,
    configHash: "cfg-hash",
    codeVersion: "test",
    dataset: { path: "data/q.jsonl", hash: "data-hash" },
    ...overrides
  })

export { question, result } from "../src/testing/Results.js"

/** Bytes and modification time of a file, to prove it was not touched. */
export const fingerprint = (file: string) => {
  const stat = Fs.statSync(file)
  return { bytes: Fs.readFileSync(file).toString("base64"), mtimeMs: stat.mtimeMs, size: stat.size }
}

/** A store migration a future build might ship, numbered `id`. */
export const laterMigration = (
  id: number,
  olderBuildsMayOpen: boolean,
  run: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, SqlError.SqlError>
): StoreMigration => ({ id, name: `future_${id}`, olderBuildsMayOpen, run: (sql) => Effect.asVoid(run(sql)) })

/**
 * Migrates a store as a future build would: this build's migrations and `later` after them, through the registry
 * (`migrationsWith`) and the migrator the store uses, over a client of its own.
 */
export const migrateAsFutureBuild = <E>(
  client: Layer.Layer<SqlClient.SqlClient, E>,
  ...later: ReadonlyArray<StoreMigration>
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => Migrator.make({})({ loader: Migrator.fromRecord(migrationsWith(sql, later)), table: migrationsTable })
  ).pipe(
    Effect.provide(client),
    Effect.orDie
  )
