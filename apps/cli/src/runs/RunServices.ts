import { Collections } from "@deepnote/retrieval"
import { RunEvents, RunExecutor } from "@deepnote/runs"
import { Store } from "@deepnote/store"
import { Layer, type Option } from "effect"
import { homeLayer } from "../commands/Common.js"
import { CommandFailed } from "../Errors.js"

/** The store, the executor, the event hub and collections, under the chosen home. */
export const runServices = (home: Option.Option<string>) =>
  RunExecutor.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(
      Store.layerHome.pipe(Layer.mapError((e) => new CommandFailed({ message: e.message }))),
      RunEvents.layer,
      Collections.layer
    )),
    Layer.provideMerge(homeLayer(home))
  )
