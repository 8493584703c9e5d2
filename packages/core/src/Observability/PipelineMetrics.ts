import { latencyBoundariesMs } from "./Boundaries.js"
import { taggableCounter, taggableHistogram } from "./MetricTags.js"

/** Metrics of the DeepNote pipeline, updated by `@deepnote-rag/core` and exported by `@deepnote-rag/telemetry`. */
export const PipelineMetrics = {
  /** Tags: `profile`, `outcome` (`done`, `failed`). */
  questions: taggableCounter("deepnote_questions_total", {
    description: "Questions answered or failed, by profile and outcome",
    incremental: true
  }),
  /** Tags: `profile`, `outcome`. */
  questionDuration: taggableHistogram("deepnote_question_duration_ms", latencyBoundariesMs, "Question latency in ms"),
  /** Tags: `profile`. Refinement steps taken (step 0, the initial retrieval, is not counted). */
  steps: taggableCounter("deepnote_steps_total", {
    description: "Note refinement steps taken, by profile",
    incremental: true
  }),
  /** Tags: `profile`, `reason` (a StopReason). */
  stopReasons: taggableCounter("deepnote_stop_reasons_total", {
    description: "Why the note loop ended, by profile and reason",
    incremental: true
  }),
  /** Tags: `verdict` (`better`, `not-better`). */
  verdicts: taggableCounter("deepnote_verdicts_total", {
    description: "Judge verdicts on candidate notes",
    incremental: true
  }),
  /** Tags: `phase` (`initial`, `refine`). */
  retrievalDuration: taggableHistogram(
    "deepnote_retrieval_duration_ms",
    latencyBoundariesMs,
    "Retriever.search latency in ms"
  )
} as const
