import { Schema } from "effect"
import { MetricName } from "../Metrics/Metric.js"

/** One metric over a set of questions: mean and 95% CI as percentages (×100, 2 decimals). */
export const MetricSummary = Schema.Struct({
  name: MetricName,
  description: Schema.String,
  /** Questions the metric applied to. */
  n: Schema.Int,
  mean: Schema.Number,
  ci: Schema.optional(Schema.Struct({
    low: Schema.Number,
    high: Schema.Number,
    level: Schema.Number,
    resamples: Schema.Int,
    seed: Schema.Int
  }))
})
export type MetricSummary = typeof MetricSummary.Type

/** Scores and trace figures of one question (when the report is built with `perItem`). */
export const ItemScores = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("done", "failed", "pending"),
  prediction: Schema.optional(Schema.String),
  golds: Schema.Array(Schema.String),
  scores: Schema.Record({ key: Schema.String, value: Schema.Number }),
  stopReason: Schema.optional(Schema.String),
  llmCalls: Schema.optional(Schema.Int),
  retrievals: Schema.optional(Schema.Int),
  /** Unique passages the question read. */
  passages: Schema.optional(Schema.Int),
  recallInit: Schema.optional(Schema.Number),
  recallFinal: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String)
})
export type ItemScores = typeof ItemScores.Type

/** An evaluation report over the finished items of a run (or any list of outcomes). */
export class Report extends Schema.Class<Report>("Report")({
  title: Schema.optional(Schema.String),
  /** True when some items have not finished: then the figures cover `counts.finished` of `counts.total`. */
  partial: Schema.Boolean,
  counts: Schema.Struct({ total: Schema.Int, finished: Schema.Int, done: Schema.Int, failed: Schema.Int }),
  /** Over `done` items (failed ones too, as 0, with `scoreFailuresAsZero`). */
  metrics: Schema.Array(MetricSummary),
  /** Means per done question. Tokens only over questions with usage. */
  cost: Schema.Struct({
    llmCalls: Schema.Number,
    retrievals: Schema.Number,
    /** Unique passages read per question (within `budget`). */
    passages: Schema.optional(Schema.Number),
    steps: Schema.Number,
    wallMs: Schema.Number,
    promptTokens: Schema.optional(Schema.Number),
    completionTokens: Schema.optional(Schema.Number),
    /** `deeprag`: subqueries per question answered from retrieval and from the model's own knowledge. */
    subqueries: Schema.optional(Schema.Struct({ retrieved: Schema.Number, parametric: Schema.Number }))
  }),
  stopReasons: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /**
   * Gold-passage recall (%) after initialisation (step 0) and at the end — at the passage budget, when the run has one
   * — over done questions with gold passages; `allGold`: the share (%) of them that read every gold passage.
   */
  recall: Schema.Struct({
    n: Schema.Int,
    init: Schema.optional(Schema.Number),
    final: Schema.optional(Schema.Number),
    allGold: Schema.optional(Schema.Number)
  }),
  /** The run's passage budget (`maxUniquePassages` or its profile's default); absent: none, or not known. */
  budget: Schema.optional(Schema.Int),
  failures: Schema.Array(Schema.Struct({ id: Schema.String, tag: Schema.String, message: Schema.String })),
  items: Schema.optional(Schema.Array(ItemScores))
}) {}
