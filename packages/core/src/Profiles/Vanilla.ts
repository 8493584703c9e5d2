import { structuredFormats } from "../Domain/RoleFormats.js"
import { baselineRun, vanilla as retrieveThenAnswer } from "../Pipeline/Baselines.js"
import type { ProfileDefinition } from "./ProfileDefinition.js"

/** `vanilla`: one retrieval, then the answer from the raw passages. */
export const vanilla: ProfileDefinition = {
  name: "vanilla",
  summary: "baseline: one retrieval, the answer from the passages",
  retrieves: true,
  formats: structuredFormats,
  promptLayout: "shared-prefix",
  stop: undefined,
  defaults: {},
  run: baselineRun(retrieveThenAnswer)
}
