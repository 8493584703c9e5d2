import type { Home } from "@deepnote-rag/core"
import type { SqlClient } from "@effect/sql"
import { Layer } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { EventLog } from "./EventLog.js"
import { Journal } from "./Journal.js"
import { RunLeases } from "./RunLeases.js"
import { RunStore } from "./RunStore.js"
import * as StoreDatabase from "./StoreDatabase.js"
import type { InvalidStoreUrl } from "./StoreUrl.js"
import { Sweeps } from "./Sweeps.js"

/** Every store service. */
export type StoreServices = RunStore | Journal | EventLog | Sweeps | RunLeases

const services = Layer.mergeAll(RunStore.layer, Journal.layer, EventLog.layer, Sweeps.layer, RunLeases.layer)

/**
 * All store services, and the database's `SqlClient` (the work queue lives in the same database), over the database named by `url`: `sqlite:PATH` or a path, `sqlite::memory:`, or
 * `postgres://…`. Opening checks an SQLite file first (foreign, corrupted or newer → `StoreError`, file left
 * unchanged; not writable → opened read-only), and applies migrations.
 */
export const layer = (
  options: StoreDatabase.StoreDatabaseOptions
): Layer.Layer<StoreServices | SqlClient.SqlClient, StoreError | InvalidStoreUrl> =>
  services.pipe(Layer.provideMerge(StoreDatabase.layer(options)))

/** The store named by `DEEPNOTE_STORE`, else the SQLite file `<home>/deepnote.sqlite`. */
export const layerConfig: Layer.Layer<StoreServices | SqlClient.SqlClient, StoreError | InvalidStoreUrl, Home> =
  services.pipe(Layer.provideMerge(StoreDatabase.layerConfig))
