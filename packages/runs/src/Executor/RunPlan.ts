import type { AlignSpec, RunConfig } from "@deepnote-rag/core"
import type { Run } from "@deepnote-rag/store"

/**
 * What the executor needs to know about a run: its id, its decoded config, the config hash journal keys use, and —
 * for an align run — its recipe (its questions make preference pairs instead of answers).
 */
export interface RunPlan {
  readonly runId: string
  readonly config: RunConfig
  readonly configHash: string
  readonly align?: AlignSpec | undefined
}

/** The plan of a stored run. */
export const planOf = (run: Run): RunPlan => ({
  runId: run.id,
  config: run.manifest.config,
  configHash: run.manifest.configHash,
  align: run.manifest.align
})
