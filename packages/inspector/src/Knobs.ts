import { show } from "./Format.js"
import type { RunView } from "./Types.js"

/** The knobs a run list shows (the full config is on the run page). */
const listed = ["engine", "topK", "numQueries", "maxStep", "maxFailure", "reranker"] as const

/** `engine=extractive topK=5 …` for a run's config. */
export const knobSummary = (run: RunView): string =>
  listed.filter((k) => run.config[k] !== undefined).map((k) => `${k}=${show(run.config[k])}`).join(" ")

/** A sweep cell's knobs as `maxStep=2 topK=3`. */
export const cellSummary = (cell: Readonly<Record<string, unknown>>): string =>
  Object.entries(cell).map(([k, v]) => `${k}=${show(v)}`).join(" ")

/** The label a run shows: its label, else its id; a sweep cell adds its knobs (its cells share the sweep's label). */
export const runName = (run: RunView): string =>
  run.sweepCell === undefined ? run.label ?? run.id : `${run.label ?? run.id} (${cellSummary(run.sweepCell)})`
