import { structuredFormats } from "../Domain/RoleFormats.js"
import { deepnoteStep } from "../Pipeline/DeepNoteLoop.js"
import { noteLoop } from "../Pipeline/NoteLoop.js"
import { budgetSpent, type ProfileDefaults, type ProfileDefinition, type StopPolicy } from "./ProfileDefinition.js"

/** No passage budget unless `maxUniquePassages` is set. */
const defaults: ProfileDefaults = {}

/** Cumulative rejected notes reach `maxFailure`, else every one of `maxStep` steps ran, else the budget is spent. */
export const deepnoteStop: StopPolicy = (state) =>
  state.failures >= state.config.maxFailure
    ? "max-failure"
    : state.step >= state.config.maxStep
    ? "max-step"
    : budgetSpent(state, defaults)
    ? "passage-cap"
    : undefined

/** `deepnote` (default): the note loop with per-query retrieval, fusion, dedup of seen passages, structured outputs. */
export const deepnote: ProfileDefinition = {
  name: "deepnote",
  summary: "DeepNote's note loop with per-query retrieval, fusion, dedup and structured outputs (default)",
  retrieves: true,
  formats: structuredFormats,
  promptLayout: "shared-prefix",
  stop: deepnoteStop,
  defaults,
  run: noteLoop(deepnoteStep, deepnoteStop)
}
