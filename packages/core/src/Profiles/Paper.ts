import { noteLoop } from "../Pipeline/NoteLoop.js"
import { paperStep } from "../Pipeline/PaperLoop.js"
import type { ProfileDefinition, StopPolicy } from "./ProfileDefinition.js"

/**
 * The reference's stop rule: cumulative failures ≥ `maxFailure`, then `maxStep`, then strictly more unique passages
 * than `maxUniquePassages` (checked after the first note too, as the reference checks at the start of every step).
 */
export const paperStop: StopPolicy = ({ config, failures, step, uniquePassages }) =>
  failures >= config.maxFailure
    ? "max-failure"
    : step >= config.maxStep
    ? "max-step"
    : uniquePassages > config.maxUniquePassages
    ? "passage-cap"
    : undefined

/** `paper`: the public reference implementation's behaviour, for comparison. */
export const paper: ProfileDefinition = {
  name: "paper",
  summary: "the public reference implementation's behaviour (raw planner text, JSON judge, passage cap)",
  retrieves: true,
  formats: { plan: "text", update: "rewrite", judge: "json", answer: "raw" },
  stop: paperStop,
  defaults: {},
  run: noteLoop(paperStep, paperStop)
}
