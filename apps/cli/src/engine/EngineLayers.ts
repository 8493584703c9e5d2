import type { RunConfig } from "@deepnote/core"
import * as Shared from "@deepnote/runs"
import { type LlmOptionValues, llmSettingsLayer } from "./LlmOptions.js"

/** The four role services for the configured engine: the offline extractive baseline or an LLM server pool. */
export const rolesLayer = (config: RunConfig, llm: LlmOptionValues, llmFromFile: unknown) =>
  Shared.rolesLayer(config.engine, llmSettingsLayer(llm, llmFromFile))
