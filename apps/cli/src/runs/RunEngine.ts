import type { RunConfig } from "@deepnote/core"
import { instructionsFor } from "@deepnote/llm"
import { Collections } from "@deepnote/retrieval"
import { stableHash } from "@deepnote/store"
import { Layer, type Option } from "effect"
import { homeLayer } from "../commands/Common.js"
import { retrieverLayer, rolesLayer } from "../engine/EngineLayers.js"
import type { LlmOptionValues } from "../engine/LlmOptions.js"

/** What a run's answers depend on besides its config: the prompts (LLM engine) or the engine's version. */
export const promptSetHash = (config: RunConfig): string =>
  config.engine === "llm" ? `llm:${stableHash([instructionsFor("en"), instructionsFor("zh")])}` : "extractive@0.1.0"

/** The retriever over the run's collection and the roles of its engine, built once per execution. */
export const runEngineLayer = (
  config: RunConfig,
  collection: string,
  llm: LlmOptionValues,
  llmFromFile: unknown,
  home: Option.Option<string>
) =>
  Layer.mergeAll(rolesLayer(config, llm, llmFromFile), retrieverLayer(config, collection)).pipe(
    Layer.provide(Collections.layer),
    Layer.provide(homeLayer(home))
  )
