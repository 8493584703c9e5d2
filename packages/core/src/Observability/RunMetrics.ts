import { taggableCounter } from "./MetricTags.js"

/** Metrics of resumable runs, updated by `@deepnote-rag/runs` and exported by `@deepnote-rag/telemetry`. */
export const RunMetrics = {
  /** Tags: `outcome` (`done`, `failed`). */
  items: taggableCounter("deepnote_run_items_total", {
    description: "Run items finished by this process, by outcome",
    incremental: true
  }),
  /** Goes up and down (an OTLP non-monotonic sum). */
  itemsInFlight: taggableCounter("deepnote_run_items_in_flight", { description: "Run items being answered" }),
  /** Tags: `source` (`executed`, `replayed`). Replayed calls come from the journal and are not sent again. */
  calls: taggableCounter("deepnote_run_engine_calls_total", {
    description: "Engine and retrieval calls of run items, executed or replayed from the journal",
    incremental: true
  })
} as const
