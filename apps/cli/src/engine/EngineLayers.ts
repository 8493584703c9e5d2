import type { RunConfig } from "@deepnote/core"
import { Extractive } from "@deepnote/extractive"
import { LlmEngine } from "@deepnote/llm"
import { FtsRetriever, Reranker } from "@deepnote/retrieval"
import { NodeHttpClient } from "@effect/platform-node"
import { Layer } from "effect"
import { llmSettingsLayer, type LlmOptionValues } from "./LlmOptions.js"

/** The four role services for the configured engine: the offline extractive baseline or an LLM server pool. */
export const rolesLayer = (config: RunConfig, llm: LlmOptionValues, llmFromFile: unknown) =>
  config.engine === "extractive" ? Extractive.layer : LlmEngine.layer.pipe(Layer.provide(llmSettingsLayer(llm, llmFromFile)))

/** The retriever over an embedded collection, with the HTTP reranker when the config asks for one. */
export const retrieverLayer = (config: RunConfig, collection: string) =>
  config.reranker === "http"
    ? FtsRetriever.layerFromCollections({ collection }).pipe(
      Layer.provide(Reranker.layerConfig),
      Layer.provide(NodeHttpClient.layerUndici)
    )
    : FtsRetriever.layerFromCollections({ collection })
