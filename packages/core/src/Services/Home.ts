import { Config, Context, Effect, Layer } from "effect"
import * as Path from "node:path"

/** The data directory. Each package names its own files under it (the store its database, retrieval its collections). */
export interface HomeService {
  /** Absolute path of the directory. */
  readonly root: string
}

/**
 * The data directory that holds all state: collections, runs, caches and keys.
 * Chosen by `--home DIR`, else `DEEPNOTE_HOME`, else `./.deepnote`.
 */
export class Home extends Context.Tag("@deepnote-rag/core/Home")<Home, HomeService>() {
  static readonly make = (root: string): HomeService => Home.of({ root: Path.resolve(root) })

  static readonly layer = (root: string) => Layer.succeed(Home, Home.make(root))

  /** From `DEEPNOTE_HOME`, else `./.deepnote`. */
  static readonly layerConfig = Layer.effect(
    Home,
    Config.string("DEEPNOTE_HOME").pipe(Config.withDefault(".deepnote"), Effect.map(Home.make))
  )
}
