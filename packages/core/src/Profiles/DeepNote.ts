import { structuredFormats } from "../Domain/RoleFormats.js"
import { deepnoteStep } from "../Pipeline/DeepNoteLoop.js"
import { noteLoop } from "../Pipeline/NoteLoop.js"
import { noteLoopStop, type ProfileDefaults, type ProfileDefinition, type StopPolicy } from "./ProfileDefinition.js"

/** No passage budget unless `maxUniquePassages` is set. */
const defaults: ProfileDefaults = {}

/** The note loop's stop rule (`noteLoopStop`), with no passage budget by default. */
export const deepnoteStop: StopPolicy = noteLoopStop(defaults)

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
