import { deepRagLoop } from "../Pipeline/DeepRagLoop.js"
import { budgetSpent, type ProfileDefinition, type StopPolicy } from "./ProfileDefinition.js"

/** The cap on subqueries when `maxIterations` is unset (DeepRAG reports 3–5 subqueries per question). */
const defaults = { maxIterations: 5 } as const

/** After `maxIterations` subqueries (default 5); "the final answer is" ends the loop earlier, in the loop itself. */
export const deepRagStop: StopPolicy = (state) =>
  state.step >= (state.config.maxIterations ?? defaults.maxIterations)
    ? "max-step"
    : budgetSpent(state, defaults)
    ? "passage-cap"
    : undefined

/**
 * `deeprag`: DeepRAG at inference (its imitation and calibration training are out of scope). Follow-up subqueries,
 * each with an atomic decision to retrieve or to answer from the model's own knowledge, then an intermediate answer,
 * until the final answer; the judge role makes the decision (`retrieve` format).
 */
export const deepRag: ProfileDefinition = {
  name: "deeprag",
  summary: "DeepRAG (inference): follow-up subqueries, each retrieved or answered from the model's own knowledge",
  retrieves: true,
  formats: { plan: "decompose", update: "rewrite", judge: "retrieve", answer: "cleaned" },
  promptLayout: "shared-prefix",
  stop: deepRagStop,
  defaults,
  run: deepRagLoop(deepRagStop)
}
