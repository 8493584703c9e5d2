import { RunConfig } from "@deepnote-rag/core"
import { Schema } from "effect"

/**
 * Run-config knobs a request may set (every field optional, same names and ranges as `RunConfig`); the server's
 * defaults fill the rest and the merged config is validated as a whole (cross-field rules name their field). Unknown
 * keys, at any depth, are refused with the key's path.
 */
export const ConfigPatch = Schema.encodedBoundSchema(RunConfig.from).annotations({
  identifier: "ConfigPatch",
  // a misspelled knob (`max_step`, `topk`) must not silently run the experiment with the default instead
  parseOptions: { onExcessProperty: "error" },
  description:
    "RunConfig knobs (profile, topK, recallK, numQueries, maxStep, maxFailure, sampling, roles, …); unset fields take the server's defaults."
})
export type ConfigPatch = typeof ConfigPatch.Type
