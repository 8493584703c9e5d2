import { describeConfigFailure } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { RunEvents, RunExecutor, WorkQueue } from "@deepnote-rag/runs"
import { type RunNotFound, Store, type StoreError } from "@deepnote-rag/store"
import { Layer, Option } from "effect"
import { homeLayer } from "../commands/Common.js"
import { CommandFailed, UsageError } from "../Errors.js"

/** The run store named by `--store`, else by `DEEPNOTE_STORE`, else the home's SQLite file; bad URLs are usage errors. */
export const storeLayer = (store: Option.Option<string>) =>
  Option.match(store, { onNone: () => Store.layerConfig, onSome: (url) => Store.layer({ url }) }).pipe(
    Layer.mapError((e) =>
      e._tag === "InvalidStoreUrl"
        ? new UsageError({ message: e.message })
        : new CommandFailed({ message: e.message })
    )
  )

/** `--store`, else the `--config` file's `store` key (then `DEEPNOTE_STORE`, then the home's file: `storeLayer`). */
export const storeChoice = (flag: Option.Option<string>, fromFile: string | undefined): Option.Option<string> =>
  Option.orElse(flag, () => Option.fromNullable(fromFile))

/** The store, the executor, the event hub and collections, under the chosen home. */
export const runServices = (home: Option.Option<string>, store: Option.Option<string> = Option.none()) =>
  RunExecutor.layerConfig.pipe(
    Layer.mapError((e) => new UsageError({ message: describeConfigFailure(e) })),
    Layer.provideMerge(Layer.mergeAll(storeLayer(store), RunEvents.layer, Collections.layer)),
    Layer.provideMerge(homeLayer(home))
  )

/** `runServices` plus the work queue in the store's database (enqueueing, workers). */
export const queueServices = (home: Option.Option<string>, store: Option.Option<string> = Option.none()) =>
  WorkQueue.layerConfig.pipe(
    Layer.mapError((e) => new CommandFailed({ message: e.message })),
    Layer.provideMerge(runServices(home, store))
  )

/** The one line a run command prints for an id the store does not know. */
export const unknownRun = (e: RunNotFound) =>
  new CommandFailed({ message: `unknown run id "${e.runId}" (see \`deepnote status\`)` })

/** The one line a run command prints when the store fails (its message names the store and what failed). */
export const storeFailed = (e: StoreError) => new CommandFailed({ message: e.message })

/** `Effect.catchTags(storeFailures)`: the store's two failures as the lines above. */
export const storeFailures = { RunNotFound: unknownRun, StoreError: storeFailed } as const
