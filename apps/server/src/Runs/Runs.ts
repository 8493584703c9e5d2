import { Context, Effect, Layer } from "effect"
import { ServerSettings } from "../ServerSettings.js"
import { makeRunManager } from "./RunManager.js"

/** The run manager as a service; on startup it resumes the unfinished runs the server started (see `makeRunManager`). */
export class Runs extends Context.Tag("@deepnote/server/Runs")<Runs, Effect.Effect.Success<typeof makeRunManager>>() {
  static readonly layer = Layer.scoped(
    Runs,
    Effect.gen(function*() {
      const manager = yield* makeRunManager
      if ((yield* ServerSettings).resumeOnStart) yield* Effect.forkScoped(manager.resumeUnfinished)
      return manager
    })
  )
}
