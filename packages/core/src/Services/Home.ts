import { Config, Context, Effect, Layer } from "effect"
import * as Path from "node:path"

/**
 * The data directory that holds all state: collections, runs, caches and keys.
 * Chosen by `--home DIR`, else `DEEPNOTE_HOME`, else `./.deepnote`.
 */
export class Home extends Context.Tag("@deepnote/core/Home")<Home, {
  readonly root: string
  /** `<root>/collections/<name>.sqlite`: one index file per collection. */
  readonly collectionFile: (name: string) => string
  readonly collectionsDir: string
  /** `<root>/deepnote.sqlite`: runs, items, journal, keys. */
  readonly storeFile: string
  /** `<root>/llm-cache.sqlite`: the content-addressed LLM response cache. */
  readonly llmCacheFile: string
}>() {
  static readonly make = (root: string): Home["Type"] => {
    const absolute = Path.resolve(root)
    const collectionsDir = Path.join(absolute, "collections")
    return {
      root: absolute,
      collectionsDir,
      collectionFile: (name) => Path.join(collectionsDir, `${name}.sqlite`),
      storeFile: Path.join(absolute, "deepnote.sqlite"),
      llmCacheFile: Path.join(absolute, "llm-cache.sqlite")
    }
  }

  static readonly layer = (root: string) => Layer.succeed(Home, Home.make(root))

  /** From `DEEPNOTE_HOME`, else `./.deepnote`. */
  static readonly layerConfig = Layer.effect(
    Home,
    Config.string("DEEPNOTE_HOME").pipe(Config.withDefault(".deepnote"), Effect.map(Home.make))
  )
}
