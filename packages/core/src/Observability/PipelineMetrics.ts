import { Metric } from "effect"
import { latencyBoundariesMs } from "./Boundaries.js"

/** Metrics of the DeepNote pipeline, updated by `@deepnote/core` and exported by `@deepnote/telemetry`. */
export const PipelineMetrics = {
  /** Tags: `profile`, `outcome` (`done`, `failed`). */
  questions: Metric.counter("deepnote_questions_total", { description: "Questions answered or failed, by profile and outcome", incremental: true }),
  /** Tags: `profile`, `outcome`. */
  questionDuration: Metric.histogram("deepnote_question_duration_ms", latencyBoundariesMs, "Question latency in ms"),
  /** Tags: `profile`. Refinement steps taken (step 0, the initial retrieval, is not counted). */
  steps: Metric.counter("deepnote_steps_total", { description: "Note refinement steps taken, by profile", incremental: true }),
  /** Tags: `profile`, `reason` (a StopReason). */
  stopReasons: Metric.counter("deepnote_stop_reasons_total", { description: "Why the note loop ended, by profile and reason", incremental: true }),
  /** Tags: `verdict` (`better`, `not-better`). */
  verdicts: Metric.counter("deepnote_verdicts_total", { description: "Judge verdicts on candidate notes", incremental: true }),
  /** Tags: `phase` (`initial`, `refine`). */
  retrievalDuration: Metric.histogram("deepnote_retrieval_duration_ms", latencyBoundariesMs, "Retriever.search latency in ms")
} as const
