import type { Language } from "./Language.js"
import type { RoleFormats } from "./RoleFormats.js"
import type { RunConfig } from "./RunConfig.js"

/**
 * What every role and retrieval call knows about where it runs: the question, the step, the resolved language, the
 * output formats its profile asks of the roles and the run configuration (per-role sampling, task).
 */
export interface CallContext {
  readonly questionId: string
  readonly runId: string | undefined
  readonly step: number
  readonly language: Language
  readonly formats: RoleFormats
  readonly config: RunConfig
}
