import { noteLoop } from "../Pipeline/NoteLoop.js"
import { paperStep } from "../Pipeline/PaperLoop.js"
import { paperDefaultCap } from "../Pipeline/PaperRules.js"
import { noteLoopStop, type ProfileDefinition, type StopPolicy } from "./ProfileDefinition.js"

/** The reference's cap on unique passages (`max_top_k`) when `maxUniquePassages` is unset. */
const defaults = { maxUniquePassages: paperDefaultCap } as const

/**
 * The reference's stop rule: cumulative failures ≥ `maxFailure`, then `maxStep`, then the unique-passage cap (checked
 * after the first note too, as the reference checks at the start of every step). The reference stops at strictly
 * more than the cap and, at exactly the cap, retrieves once more unfiltered (up to cap + top_k read); the budget is
 * exact in every profile, so here the loop stops once the cap is reached.
 */
export const paperStop: StopPolicy = noteLoopStop(defaults)

/** `paper`: the public reference implementation's behaviour, for comparison. */
export const paper: ProfileDefinition = {
  name: "paper",
  summary: "the public reference implementation's behaviour (raw planner text, JSON judge, passage cap)",
  retrieves: true,
  formats: { plan: "text", update: "rewrite", judge: "json", answer: "raw" },
  promptLayout: "role-first",
  stop: paperStop,
  defaults,
  run: noteLoop(paperStep, paperStop)
}
