import { Comparison as ItemsComparison } from "@deepnote-rag/eval"
import { Schema } from "effect"
import { IntParam } from "./Names.js"
import { RunView } from "./Runs.js"

/** `GET /v1/compare` query: the two runs and the bootstrap's resamples and seed. */
export const CompareParams = Schema.Struct({
  base: Schema.String.pipe(Schema.minLength(1)),
  candidate: Schema.String.pipe(Schema.minLength(1)),
  /** Bootstrap resamples (default 1000; at most 10000: the work grows with resamples × questions × metrics). */
  resamples: Schema.optional(IntParam(100, 10_000)),
  /** The bootstrap's PRNG seed (default 20241011): the same seed gives the same interval. */
  seed: Schema.optional(IntParam(0, 2 ** 31 - 1))
})

/**
 * Two runs compared question by question (paired by question id): per metric the means (percent) and the paired
 * bootstrap 95% interval of `candidate − base`; per question its scores (in [0, 1]) on both sides and its change by
 * `primaryMetric`, regressed first.
 */
export class Comparison extends ItemsComparison.extend<Comparison>("Comparison")({
  base: RunView,
  candidate: RunView
}) {}
