import type { RunConfig } from "@deepnote-rag/core"
import { Engine } from "@deepnote-rag/engine"
import { Collections, type MeiliOptions } from "@deepnote-rag/retrieval"
import { Layer, type Option } from "effect"
import { homeLayer } from "../commands/Common.js"
import { type LlmOptionValues, llmSettingsLayer } from "../engine/LlmOptions.js"

/**
 * The engine of a run (its roles and a retriever over its collection, or the Meilisearch index of `meili`), built
 * once per execution. `recordedLlm`: the LLM servers a resumed run recorded, used when nothing names others.
 */
export const runEngineLayer = (
  config: RunConfig,
  collection: string,
  llm: LlmOptionValues,
  llmFromFile: unknown,
  home: Option.Option<string>,
  meili?: MeiliOptions | undefined,
  recordedLlm: ReadonlyArray<string> = []
) =>
  Engine.layer({ config, collection, llm: llmSettingsLayer(llm, llmFromFile, "batch", recordedLlm), meili }).pipe(
    Layer.provide(Collections.layer),
    Layer.provide(homeLayer(home))
  )
