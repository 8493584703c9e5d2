import { Home } from "@deepnote/core"
import {
  ApiKeys,
  EventLog,
  IngestJobLog,
  Journal,
  RunOwners,
  RunStore,
  SharedCache,
  StoreDatabase,
  type StoreError,
  Sweeps
} from "@deepnote/store"
import { Effect, Layer } from "effect"
import * as Path from "node:path"
import { KeyPepper } from "./Auth/KeyPepper.js"

/** The store services the server uses, over `<home>/deepnote.sqlite` (the CLI's store), API keys included. */
export type ServerStoreServices =
  | RunStore
  | Journal
  | EventLog
  | SharedCache
  | Sweeps
  | RunOwners
  | ApiKeys
  | IngestJobLog

/** Opens the home's store (checked and migrated) with API keys peppered by `KeyPepper`. */
export const serverStoreLayer: Layer.Layer<ServerStoreServices, StoreError, Home> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const home = yield* Home
    const pepper = yield* KeyPepper
    return Layer.mergeAll(
      RunStore.layer,
      Journal.layer,
      EventLog.layer,
      SharedCache.layer,
      Sweeps.layer,
      RunOwners.layer,
      ApiKeys.layer(pepper),
      IngestJobLog.layer
    ).pipe(
      Layer.provide(StoreDatabase.layer({ filename: Path.join(home.root, "deepnote.sqlite") }))
    )
  })
).pipe(Layer.provide(KeyPepper.layer))
