import type { Language } from "./Language.js"
import type { RunConfig } from "./RunConfig.js"

/**
 * What every role and retrieval call knows about where it runs: the question, the step, the resolved language
 * and the whole run configuration (per-role sampling, profile, task). Implementations read what they need.
 */
export interface CallContext {
  readonly questionId: string
  readonly runId: string | undefined
  readonly step: number
  readonly language: Language
  readonly config: RunConfig
}
