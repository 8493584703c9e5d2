import type { Home } from "@deepnote-rag/core"
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
  Sweeps,
  TenantQuotas
} from "@deepnote-rag/store"
import type { SqlClient } from "@effect/sql"
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
  | TenantQuotas
  | ApiKeys
  | IngestJobLog

/**
 * Opens the store — `storeUrl` if given, else `DEEPNOTE_STORE`, else the home's SQLite file; checked and migrated —
 * with API keys peppered by `KeyPepper`. Its `SqlClient` is provided too: the work queue lives in the same database.
 */
export const serverStoreLayer = (
  storeUrl: string | undefined
): Layer.Layer<ServerStoreServices | SqlClient.SqlClient, StoreError | InvalidStoreUrl, Home> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const pepper = yield* KeyPepper
      return Layer.mergeAll(
        RunStore.layer,
        Journal.layer,
        EventLog.layer,
        Sweeps.layer,
        RunOwners.layer,
        RunLeases.layer,
        TenantQuotas.layer,
        ApiKeys.layer(pepper),
        IngestJobLog.layer
      ).pipe(
        Layer.provideMerge(
          storeUrl === undefined ? StoreDatabase.layerConfig : StoreDatabase.layer({ url: storeUrl })
        )
      )
    })
  ).pipe(Layer.provide(KeyPepper.layer))
