import { Home } from "@deepnote/core"
import { Effect, Layer } from "effect"
import * as Path from "node:path"
import type { StoreError } from "./Domain/Errors.js"
import { EventLog } from "./EventLog.js"
import { Journal } from "./Journal.js"
import { RunStore } from "./RunStore.js"
import { SharedCache } from "./SharedCache.js"
import * as StoreDatabase from "./StoreDatabase.js"
import { Sweeps } from "./Sweeps.js"

/** Every store service. */
export type StoreServices = RunStore | Journal | EventLog | SharedCache | Sweeps

const services = Layer.mergeAll(RunStore.layer, Journal.layer, EventLog.layer, SharedCache.layer, Sweeps.layer)

/**
 * All store services over one SQLite file. Opening checks the file (foreign or corrupted → `StoreError`, file left
 * unchanged), then enables WAL, a busy timeout and foreign keys, and applies migrations.
 */
export const layer = (options: StoreDatabase.StoreDatabaseOptions): Layer.Layer<StoreServices, StoreError> =>
  services.pipe(Layer.provide(StoreDatabase.layer(options)))

/** The store at `<home>/deepnote.sqlite`. */
export const layerHome: Layer.Layer<StoreServices, StoreError, Home> = Layer.unwrapEffect(
  Effect.map(Home, (home) => layer({ filename: Path.join(home.root, "deepnote.sqlite") }))
)

/** An in-memory store, for tests. */
export const layerMemory: Layer.Layer<StoreServices, StoreError> = layer({ filename: ":memory:" })
