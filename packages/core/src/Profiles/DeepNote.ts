import { structuredFormats } from "../Domain/RoleFormats.js"
import { deepnoteStep } from "../Pipeline/DeepNoteLoop.js"
import { noteLoop } from "../Pipeline/NoteLoop.js"
import type { ProfileDefinition, StopPolicy } from "./ProfileDefinition.js"

/** Cumulative rejected notes reach `maxFailure`, else every one of `maxStep` steps ran. */
export const deepnoteStop: StopPolicy = ({ config, failures, step }) =>
  failures >= config.maxFailure ? "max-failure" : step >= config.maxStep ? "max-step" : undefined

/** `deepnote` (default): the note loop with per-query retrieval, fusion, dedup of seen passages, structured outputs. */
export const deepnote: ProfileDefinition = {
  name: "deepnote",
  summary: "DeepNote's note loop with per-query retrieval, fusion, dedup and structured outputs (default)",
  retrieves: true,
  formats: structuredFormats,
  stop: deepnoteStop,
  defaults: {},
  run: noteLoop(deepnoteStep, deepnoteStop)
}
