import { Collections } from "@deepnote/retrieval"
import { RunEvents, RunExecutor } from "@deepnote/runs"
import { Store } from "@deepnote/store"
import { Layer, type Option } from "effect"
import { homeLayer } from "../commands/Common.js"
import { CommandFailed, UsageError } from "../Errors.js"

/** The store, the executor, the event hub and collections, under the chosen home. */
export const runServices = (home: Option.Option<string>) =>
  RunExecutor.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(
      Store.layerConfig.pipe(Layer.mapError((e) =>
        e._tag === "InvalidStoreUrl"
          ? new UsageError({ message: e.message })
          : new CommandFailed({ message: e.message })
      )),
      RunEvents.layer,
      Collections.layer
    )),
    Layer.provideMerge(homeLayer(home))
  )
