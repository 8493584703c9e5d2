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
  /**
   * Which execution of the question this is: 1 the first; each resume or `--retry-failed` of it counts up (undefined:
   * 1). A role that cannot read a reply draws again, and may draw more on a later execution than on the first, so
   * that retrying a question that failed on unreadable replies asks for new ones.
   */
  readonly attempt?: number | undefined
  readonly step: number
  readonly language: Language
  readonly formats: RoleFormats
  readonly config: RunConfig
}
