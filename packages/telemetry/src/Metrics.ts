import { LlmMetrics, PipelineMetrics, RunMetrics } from "@deepnote/core"

/**
 * The metric catalogue. The metric objects live in `@deepnote/core` (`Observability/*Metrics.ts`) because the packages
 * that update them (core, llm, runs) all depend on core and none may depend on telemetry; this package exports them.
 */
export { LlmMetrics, PipelineMetrics, RunMetrics }

/** Every DeepNote metric name, as exported over OTLP. */
export const metricNames: ReadonlyArray<string> = [
  "deepnote_llm_calls_total",
  "deepnote_llm_call_failures_total",
  "deepnote_llm_call_duration_ms",
  "deepnote_llm_attempts_total",
  "deepnote_llm_attempt_failures_total",
  "deepnote_llm_attempt_duration_ms",
  "deepnote_llm_in_flight",
  "deepnote_llm_tokens_total",
  "deepnote_llm_cache_hits_total",
  "deepnote_questions_total",
  "deepnote_question_duration_ms",
  "deepnote_steps_total",
  "deepnote_stop_reasons_total",
  "deepnote_verdicts_total",
  "deepnote_retrieval_duration_ms",
  "deepnote_run_items_total",
  "deepnote_run_items_in_flight",
  "deepnote_run_engine_calls_total"
]
