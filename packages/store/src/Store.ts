import type { Home } from "@deepnote/core"
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
 * All store services over the database named by `url`: `sqlite:PATH` or a path, `sqlite::memory:`, or
 * `postgres://…`. Opening checks an SQLite file first (foreign, corrupted or newer → `StoreError`, file left
 * unchanged; not writable → opened read-only), and applies migrations.
 */
export const layer = (
  options: StoreDatabase.StoreDatabaseOptions
): Layer.Layer<StoreServices, StoreError | InvalidStoreUrl> =>
  services.pipe(Layer.provide(StoreDatabase.layer(options)))

/** The store named by `DEEPNOTE_STORE`, else the SQLite file `<home>/deepnote.sqlite`. */
export const layerConfig: Layer.Layer<StoreServices, StoreError | InvalidStoreUrl, Home> = services.pipe(
  Layer.provide(StoreDatabase.layerConfig)
)
