import { Home } from "@deepnote-rag/core"
import { Config, Context, type Duration, Effect, Layer, Option } from "effect"
import { homeStoreUrl, InvalidStoreUrl, parseStoreUrl, type StoreUrl } from "./StoreUrl.js"

/** Where the store is and how to open it. */
export interface StoreSettings {
  readonly url: StoreUrl
  /** SQLite: how long a write waits for another process's write lock before failing. Default 10 s. */
  readonly busyTimeout?: Duration.DurationInput | undefined
}

/** The store's settings: `DEEPNOTE_STORE` (a store URL), else the SQLite file `<home>/deepnote.sqlite`. */
export class StoreConfig extends Context.Tag("@deepnote-rag/store/StoreConfig")<StoreConfig, StoreSettings>() {
  /** Explicit settings; the URL may be given as text (`sqlite:PATH`, a path, `postgres://…`). */
  static readonly layer = (options: {
    readonly url: string | StoreUrl
    readonly busyTimeout?: Duration.DurationInput | undefined
  }): Layer.Layer<StoreConfig, InvalidStoreUrl> =>
    Layer.effect(
      StoreConfig,
      Effect.map(parseStoreUrl(options.url), (url) => StoreConfig.of({ url, busyTimeout: options.busyTimeout }))
    )

  /** `DEEPNOTE_STORE` when set and not empty, else `sqlite:<home>/deepnote.sqlite`. */
  static readonly layerConfig: Layer.Layer<StoreConfig, InvalidStoreUrl, Home> = Layer.effect(
    StoreConfig,
    Effect.gen(function*() {
      const home = yield* Home
      const configured = yield* Config.option(Config.string("DEEPNOTE_STORE")).pipe(
        Effect.mapError((error) => new InvalidStoreUrl({ message: `DEEPNOTE_STORE: ${error.toString()}` }))
      )
      // an empty variable means unset, as in most shells' `DEEPNOTE_STORE= deepnote …`
      const url = Option.isSome(configured) && configured.value.trim() !== ""
        ? yield* parseStoreUrl(configured.value).pipe(
          Effect.mapError((e) => new InvalidStoreUrl({ message: `DEEPNOTE_STORE: ${e.message}` }))
        )
        : homeStoreUrl(home.root)
      return StoreConfig.of({ url })
    })
  )
}
