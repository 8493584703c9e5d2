import { LlmMetrics, PipelineMetrics, RunMetrics } from "@deepnote/core"

/**
 * The metric catalogue. The metric objects live in `@deepnote/core` (`Observability/*Metrics.ts`) because the packages
 * that update them (core, llm, runs) all depend on core and none may depend on telemetry; this package exports them.
 */
export { LlmMetrics, PipelineMetrics, RunMetrics }
