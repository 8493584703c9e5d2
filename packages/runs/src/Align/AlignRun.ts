import { alignPromptHashes } from "@deepnote-rag/align"
import { type RunConfig, stableHash } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import type { Run } from "@deepnote-rag/store"

/**
 * The prompt set of an align run: its engine's (the LLM prompts, or the extractive engine's version) and every prompt
 * its pairs and judges use (`alignPromptHashes`: the pairs carry the LLM prompts whatever engine samples them).
 */
export const alignPromptSetHash = (config: RunConfig): string =>
  `${promptSetHash(config)}+align:${stableHash(alignPromptHashes(config)).slice(0, 16)}`

/** The prompt set this build has for a run (what `checkResumable` compares with the run's own). */
export const runPromptSetHash = (run: Run): string =>
  run.manifest.align === undefined ? promptSetHash(run.manifest.config) : alignPromptSetHash(run.manifest.config)
