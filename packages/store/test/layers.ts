import type { SqlClient } from "@effect/sql"
import type { Vitest } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as Path from "node:path"
import {
  ApiKeys,
  EventLog,
  IngestJobLog,
  Journal,
  RunLeases,
  RunOwners,
  RunStore,
  StoreDatabase,
  Sweeps,
  TenantQuotas
} from "../src/index.js"
import { EmbeddedPostgres, PostgresDatabase } from "../src/testing/index.js"
import { tempDir } from "./fixtures.js"

/** Every service of the store, over one database. */
const services = Layer.mergeAll(
  RunStore.layer,
  Journal.layer,
  EventLog.layer,
  Sweeps.layer,
  RunLeases.layer,
  RunOwners.layer,
  ApiKeys.layer(Redacted.make("pepper-1")),
  IngestJobLog.layer,
  TenantQuotas.layer
)

export type TestServices = Layer.Layer.Success<typeof services> | SqlClient.SqlClient

/** The `it` of a suite that runs over each dialect. */
export type SuiteIt = Vitest.MethodsNonLive<TestServices>

/** An SQLite store in a temporary directory. */
export const sqliteDatabase = Layer.unwrapScoped(
  Effect.map(tempDir, (dir) => StoreDatabase.layer({ url: `sqlite:${Path.join(dir, "deepnote.sqlite")}` }))
)

/** A Postgres store: a fresh database on the test file's server. */
export const postgresDatabase = Layer.unwrapEffect(
  Effect.map(PostgresDatabase, ({ url }) => StoreDatabase.layer({ url }))
).pipe(Layer.provide(PostgresDatabase.layer))

/** The store services over each dialect, for `it.layer`; Postgres is a real server started for the test file. */
export const dialects = [
  ["sqlite", services.pipe(Layer.provideMerge(sqliteDatabase))],
  ["postgres", services.pipe(Layer.provideMerge(postgresDatabase), Layer.provide(EmbeddedPostgres.layer))]
] as const
