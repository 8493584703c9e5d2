import { type RunConfig, stableHash } from "@deepnote/core"
import { instructionsFor } from "@deepnote/llm"

/**
 * What a run's answers depend on besides its config: the prompts (LLM engine) or the extractive engine's version. A
 * run is only resumed by a build with the same hash.
 */
export const promptSetHash = (config: RunConfig): string =>
  config.engine === "llm" ? `llm:${stableHash([instructionsFor("en"), instructionsFor("zh")])}` : "extractive@0.1.0"
