import { structuredFormats } from "../Domain/RoleFormats.js"
import { deepnoteStep } from "../Pipeline/DeepNoteLoop.js"
import { noteLoop } from "../Pipeline/NoteLoop.js"
import { budgetSpent, type ProfileDefinition, type StopPolicy } from "./ProfileDefinition.js"

/** Adaptive-Note's thresholds when their knobs are unset: T_IU 1, T_RP 15 (T_CI is the shared `maxStep`, 3). */
const defaults = { maxInvalidUpdates: 1, maxUniquePassages: 15 } as const

/**
 * Adaptive-Note's memory reviewer (Trigger 2): stop = 1{IU ≥ T_IU ∨ RP ≥ T_RP ∨ CI ≥ T_CI} with IU the invalid
 * updates (`maxInvalidUpdates`, default 1), RP the deduplicated passages read (`maxUniquePassages`, default 15) and CI
 * the iterations (`maxStep`, default 3). RP is the passage budget: it stops at the threshold (≥, the retrieval that
 * reaches it is cut to fit), checked after the first note too. Reported as `max-failure`, `passage-cap`, `max-step`.
 */
export const adaptiveNoteStop: StopPolicy = (state) =>
  state.failures >= (state.config.maxInvalidUpdates ?? defaults.maxInvalidUpdates)
    ? "max-failure"
    : budgetSpent(state, defaults)
    ? "passage-cap"
    : state.step >= state.config.maxStep
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
  promptLayout: "shared-prefix",
  stop: adaptiveNoteStop,
  defaults,
  run: noteLoop(deepnoteStep, adaptiveNoteStop)
}
