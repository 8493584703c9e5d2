import type { Engine, RunConfig } from "@deepnote/core"
import type { LlmSettings } from "@deepnote/llm"
import { Collections } from "@deepnote/retrieval"
import { type EngineServices, promptSetHash, retrieverLayer, rolesLayer } from "@deepnote/runs"
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { ServerSettings } from "../ServerSettings.js"

/**
 * The server's engine: its four roles are built once at startup (one LLM client pool, one cache) and shared by every
 * request and run, and so is the HTTP reranker's connection pool; each question gets a retriever over its (namespaced)
 * collection.
 */
export class ServerEngine extends Context.Tag("@deepnote/server/ServerEngine")<ServerEngine, {
  readonly engine: Engine
  /** The roles and a retriever over the stored collection name. */
  readonly layerFor: (config: RunConfig, storedCollection: string) => Layer.Layer<EngineServices>
  readonly promptSetHash: (config: RunConfig) => string
}>() {
  /** `llmSettings` is only built when the server's engine is `llm` (`--llm-url` / `DEEPNOTE_LLM_URL`). */
  static readonly layer = <E>(llmSettings: Layer.Layer<LlmSettings, E>) =>
    Layer.scoped(
      ServerEngine,
      Effect.gen(function*() {
        const { defaults } = yield* ServerSettings
        const collections = yield* Collections
        const roles = yield* Layer.build(rolesLayer(defaults.engine, llmSettings))
        const shared = Layer.succeedContext(roles)
        const collectionsLayer = Layer.succeed(Collections, collections)
        // one connection pool for the HTTP reranker, shared by every question (built once, closed at shutdown)
        const rerankerHttp = Layer.succeedContext(yield* Layer.build(NodeHttpClient.layerUndici))
        return {
          engine: defaults.engine,
          layerFor: (config, storedCollection) =>
            Layer.merge(
              shared,
              retrieverLayer(config, storedCollection, rerankerHttp).pipe(Layer.provide(collectionsLayer), Layer.orDie)
            ),
          promptSetHash
        }
      })
    )
}
