import { PipelineMetrics, RunMetrics } from "@deepnote-rag/core"

/**
 * The pipeline and run metrics, defined in `@deepnote-rag/core` (`Observability/*Metrics.ts`) because the packages that
 * update them depend on core and none may depend on telemetry. A package owns its own metrics (`@deepnote-rag/llm`'s
 * `LlmMetrics`); the OTLP layer exports every metric registered in the process, wherever it is defined.
 */
export { PipelineMetrics, RunMetrics }
