import type { Home } from "@deepnote/core"
import {
  ApiKeys,
  EventLog,
  IngestJobLog,
  type InvalidStoreUrl,
  Journal,
  RunLeases,
  RunOwners,
  RunStore,
  StoreDatabase,
  type StoreError,
  Sweeps
} from "@deepnote/store"
import { Effect, Layer } from "effect"
import { KeyPepper } from "./Auth/KeyPepper.js"

/** The store services the server uses, over `<home>/deepnote.sqlite` (the CLI's store), API keys included. */
export type ServerStoreServices =
  | RunStore
  | Journal
  | EventLog
  | Sweeps
  | RunOwners
  | RunLeases
  | ApiKeys
  | IngestJobLog

/** Opens the store (`DEEPNOTE_STORE`, else the home's; checked and migrated) with API keys peppered by `KeyPepper`. */
export const serverStoreLayer: Layer.Layer<ServerStoreServices, StoreError | InvalidStoreUrl, Home> = Layer
  .unwrapEffect(
    Effect.gen(function*() {
      const pepper = yield* KeyPepper
      return Layer.mergeAll(
        RunStore.layer,
        Journal.layer,
        EventLog.layer,
        Sweeps.layer,
        RunOwners.layer,
        RunLeases.layer,
        ApiKeys.layer(pepper),
        IngestJobLog.layer
      ).pipe(
        Layer.provide(StoreDatabase.layerConfig)
      )
    })
  ).pipe(Layer.provide(KeyPepper.layer))
