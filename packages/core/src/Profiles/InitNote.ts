import { structuredFormats } from "../Domain/RoleFormats.js"
import { baselineRun, initNoteOnly } from "../Pipeline/Baselines.js"
import type { ProfileDefinition } from "./ProfileDefinition.js"

/** `init-note`: one retrieval, the first note, then the answer from that note. */
export const initNote: ProfileDefinition = {
  name: "init-note",
  summary: "baseline: one retrieval, the first note, the answer from it",
  retrieves: true,
  formats: structuredFormats,
  promptLayout: "shared-prefix",
  stop: undefined,
  defaults: {},
  run: baselineRun(initNoteOnly)
}
