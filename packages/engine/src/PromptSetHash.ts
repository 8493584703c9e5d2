import { type RunConfig, stableHash } from "@deepnote-rag/core"
import { instructionsFor, layoutSignature } from "@deepnote-rag/llm"

/**
 * What a run's answers depend on besides its config: the profile's prompts and their layout (LLM engine; a
 * `role-first` profile without its own wording hashes as before) or the extractive engine's version. A
 * run is only resumed by a build with the same hash.
 */
export const promptSetHash = (config: RunConfig): string =>
  config.engine === "llm"
    ? `llm:${
      stableHash([
        instructionsFor("en", config.profile),
        instructionsFor("zh", config.profile),
        ...layoutSignature(config.profile)
      ])
    }`
    : "extractive@0.1.0"
