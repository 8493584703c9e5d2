import { structuredFormats } from "../Domain/RoleFormats.js"
import { deepnoteStep } from "../Pipeline/DeepNoteLoop.js"
import { noteLoop } from "../Pipeline/NoteLoop.js"
import type { ProfileDefinition, StopPolicy } from "./ProfileDefinition.js"

/** Adaptive-Note's thresholds when their knobs are unset: T_IU 1 (its other two match the shared defaults). */
const defaults = { maxInvalidUpdates: 1 } as const

/**
 * Adaptive-Note's memory reviewer (Trigger 2): stop = 1{IU ≥ T_IU ∨ RP ≥ T_RP ∨ CI ≥ T_CI} with IU the invalid
 * updates (`maxInvalidUpdates`, default 1), RP the deduplicated passages read (`maxUniquePassages`, default 15) and CI
 * the iterations (`maxStep`, default 3). Unlike `paper`'s cap, RP stops at the threshold (≥), and it is checked after
 * the first note too. Reported as `max-failure`, `passage-cap` and `max-step`.
 */
export const adaptiveNoteStop: StopPolicy = ({ config, failures, step, uniquePassages }) =>
  failures >= (config.maxInvalidUpdates ?? defaults.maxInvalidUpdates)
    ? "max-failure"
    : uniquePassages >= config.maxUniquePassages
    ? "passage-cap"
    : step >= config.maxStep
    ? "max-step"
    : undefined

/**
 * `adaptive-note`: DeepNote's predecessor (Retriever-and-Memory). The same collector (plan → retrieve → rewrite the
 * note) and reviewer (keep the candidate only if judged better) as `deepnote`, with its own three-threshold stop rule.
 */
export const adaptiveNote: ProfileDefinition = {
  name: "adaptive-note",
  summary: "Adaptive-Note: the note loop stopped by invalid updates, iterations or passages read",
  retrieves: true,
  formats: structuredFormats,
  stop: adaptiveNoteStop,
  defaults,
  run: noteLoop(deepnoteStep, adaptiveNoteStop)
}
