import { RunConfig } from "@deepnote/core"
import { Schema } from "effect"

/**
 * Run-config knobs a request may set (every field optional, same names and ranges as `RunConfig`); the server's
 * defaults fill the rest and the merged config is validated as a whole (cross-field rules name their field).
 */
export const ConfigPatch = Schema.encodedBoundSchema(RunConfig.from).annotations({
  identifier: "ConfigPatch",
  description:
    "RunConfig knobs (profile, topK, recallK, numQueries, maxStep, maxFailure, sampling, roles, …); unset fields take the server's defaults."
})
export type ConfigPatch = typeof ConfigPatch.Type
