import type { RunConfig } from "@deepnote/core"

/** What the executor needs to know about a run: its id, its decoded config and the config hash journal keys use. */
export interface RunPlan {
  readonly runId: string
  readonly config: RunConfig
  readonly configHash: string
}
