import { structuredFormats } from "../Domain/RoleFormats.js"
import { baselineRun, noRetrieval as answerAlone } from "../Pipeline/Baselines.js"
import type { ProfileDefinition } from "./ProfileDefinition.js"

/** `no-retrieval`: the answerer sees the question only. */
export const noRetrieval: ProfileDefinition = {
  name: "no-retrieval",
  summary: "baseline: the model answers from its own knowledge",
  retrieves: false,
  formats: structuredFormats,
  promptLayout: "shared-prefix",
  stop: undefined,
  defaults: {},
  run: baselineRun(answerAlone)
}
