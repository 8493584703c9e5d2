import type { RunConfig } from "@deepnote-rag/core"
import { Engine, type EngineServices } from "@deepnote-rag/engine"
import type { LlmClientService, LlmHealth, LlmSettings } from "@deepnote-rag/llm"
import type { Collections } from "@deepnote-rag/retrieval"
import { type ConfigError, Context, Effect, Layer, type Option, type Scope } from "effect"
import { ServerSettings } from "../ServerSettings.js"

export interface ServerEngineService {
  /** The engine every request and run of this server uses (`ServerSettings.defaults.engine`). */
  readonly engine: RunConfig["engine"]
  /** The LLM servers' health when the engine is `llm` (readiness, 502/503 answers). */
  readonly llmHealth: Option.Option<Effect.Effect<LlmHealth>>
  /** The shared LLM client when the engine is `llm` (the model check and facts recorded in a run's manifest). */
  readonly llmClient: Option.Option<LlmClientService>
  /** Whether an embeddings server is configured (`DEEPNOTE_EMBEDDINGS_URL`): dense and hybrid requests need one. */
  readonly dense: boolean
  /** The shared roles and a retriever over the stored (namespaced) collection name. */
  readonly layerFor: (config: RunConfig, storedCollection: string) => Layer.Layer<EngineServices>
}

/**
 * The server's engine: its four roles are built once at startup (one LLM client pool, one cache) and shared by every
 * request and run, and so is the HTTP reranker's (and Meilisearch's) connection pool; each question gets a retriever
 * over its collection, or over the operator's Meilisearch index.
 */
export class ServerEngine
  extends Context.Tag("@deepnote-rag/server/ServerEngine")<ServerEngine, ServerEngineService>()
{
  /** `llmSettings` is only built when the server's engine is `llm` (`--llm-url` / `DEEPNOTE_LLM_URL`). */
  static readonly make = <E>(
    llmSettings: Layer.Layer<LlmSettings, E>
  ): Effect.Effect<ServerEngineService, E | ConfigError.ConfigError, ServerSettings | Collections | Scope.Scope> =>
    Effect.gen(function*() {
      const { defaults, meili } = yield* ServerSettings
      const shared = yield* Engine.make({ engine: defaults.engine, llm: llmSettings, meili })
      return ServerEngine.of({
        engine: shared.engine,
        llmHealth: shared.llmHealth,
        llmClient: shared.llmClient,
        dense: shared.dense,
        // a reranker's settings (`DEEPNOTE_RERANKER_*`) that do not decode are a fault of the server's environment
        layerFor: (config, storedCollection) => shared.layerFor(config, storedCollection).pipe(Layer.orDie)
      })
    })

  static readonly layer = <E>(llmSettings: Layer.Layer<LlmSettings, E>) =>
    Layer.scoped(ServerEngine, ServerEngine.make(llmSettings))
}
