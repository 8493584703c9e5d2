import { renactLoop } from "../Pipeline/RenactLoop.js"
import { budgetSpent, type ProfileDefinition, type StopPolicy } from "./ProfileDefinition.js"

/** ReNAct's iteration cap T when its knob is unset (the paper does not give one). */
const defaults = { maxIterations: 5 } as const

/** After T actions (`maxIterations`, default 5); `finish` ends the loop earlier, in the loop itself. */
export const renactStop: StopPolicy = (state) =>
  state.step >= (state.config.maxIterations ?? defaults.maxIterations)
    ? "max-step"
    : budgetSpent(state, defaults)
    ? "passage-cap"
    : undefined

/**
 * `renact`: NotesWriting with ReAct. The main model writes a Thought and an Action (`search[query]` or
 * `finish[answer]`); each retrieved document becomes a note (`YES#<text>` or `NO#<reason>`), the notes replace the
 * raw documents as the observation, and the answer is written from them. The notes role (`update`) may run on its own
 * model (`roles.update.model`).
 */
export const renact: ProfileDefinition = {
  name: "renact",
  summary: "NotesWriting + ReAct: search-or-finish actions, a note per retrieved document, no judge",
  retrieves: true,
  formats: { plan: "react", update: "extract", judge: "word", answer: "cleaned" },
  promptLayout: "shared-prefix",
  stop: renactStop,
  defaults,
  run: renactLoop(renactStop)
}
