import type { Engine, RunConfig } from "@deepnote/core"
import { Extractive } from "@deepnote/extractive"
import { instructionsFor, LlmEngine, type LlmSettings } from "@deepnote/llm"
import { FtsRetriever, Reranker } from "@deepnote/retrieval"
import { stableHash } from "@deepnote/store"
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"

/**
 * The four role services of an engine: the offline extractive baseline, or the LLM engine over the servers that
 * `llmSettings` describes (only built for `llm`). Shared by the CLI and the HTTP app.
 */
export const rolesLayer = <E>(engine: Engine, llmSettings: Layer.Layer<LlmSettings, E>) =>
  engine === "extractive" ? Extractive.layer : LlmEngine.layer.pipe(Layer.provide(llmSettings))

/**
 * The retriever over an embedded collection (needs `Collections`), with the HTTP reranker when the config asks. The
 * reranker's HTTP client defaults to a pool of its own; a caller that builds many retrievers (the HTTP app, one per
 * request) passes one built once, so connections are reused.
 */
export const retrieverLayer = (
  config: RunConfig,
  collection: string,
  rerankerHttp: Layer.Layer<HttpClient.HttpClient> = NodeHttpClient.layerUndici
) =>
  config.reranker === "http"
    ? FtsRetriever.layer({ collection }).pipe(
      Layer.provide(Reranker.layerConfig),
      Layer.provide(rerankerHttp)
    )
    : FtsRetriever.layer({ collection })

/** What a run's answers depend on besides its config: the prompts (LLM engine) or the engine's version. */
export const promptSetHash = (config: RunConfig): string =>
  config.engine === "llm" ? `llm:${stableHash([instructionsFor("en"), instructionsFor("zh")])}` : "extractive@0.1.0"
