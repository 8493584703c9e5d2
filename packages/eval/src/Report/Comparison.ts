import { Schema } from "effect"

/** How a question fared in the candidate run against the base run, by the task's primary metric. */
export const ItemChange = Schema.Literal("improved", "regressed", "same")
export type ItemChange = typeof ItemChange.Type

/** One side of a compared question: its place in its run, its status, its answer and its scores in [0, 1]. */
export const ComparedSide = Schema.Struct({
  seq: Schema.Int,
  status: Schema.Literal("pending", "running", "done", "failed"),
  answer: Schema.optional(Schema.String),
  metrics: Schema.Record({ key: Schema.String, value: Schema.Number })
})
export type ComparedSide = typeof ComparedSide.Type

/** A question present in both runs (paired by question id). */
export const ComparedItem = Schema.Struct({
  itemId: Schema.String,
  question: Schema.String,
  base: ComparedSide,
  candidate: ComparedSide,
  change: ItemChange
})
export type ComparedItem = typeof ComparedItem.Type

/**
 * One metric over the paired questions both runs finished: means as percentages (×100, 2 decimals, as in the report)
 * and the paired-bootstrap 95% interval of `candidate − base`.
 */
export const MetricDifference = Schema.Struct({
  metric: Schema.String,
  /** Paired questions the metric scored. */
  n: Schema.Int,
  base: Schema.Number,
  candidate: Schema.Number,
  difference: Schema.Number,
  low: Schema.Number,
  high: Schema.Number
})
export type MetricDifference = typeof MetricDifference.Type

/** Two runs compared question by question (the part that does not depend on how runs are shown). */
export class Comparison extends Schema.Class<Comparison>("Comparison")({
  /** Questions in both runs (by question id). */
  paired: Schema.Int,
  onlyBase: Schema.Int,
  onlyCandidate: Schema.Int,
  /** The metric that decides `improved` / `regressed` (F1 for QA). */
  primaryMetric: Schema.String,
  resamples: Schema.Int,
  seed: Schema.Int,
  metrics: Schema.Array(MetricDifference),
  /** Regressed first, then improved (each by the size of the change), then the same, in base order. */
  items: Schema.Array(ComparedItem)
}) {}
