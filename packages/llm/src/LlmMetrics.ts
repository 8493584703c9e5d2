import { latencyBoundariesMs, taggableCounter, taggableHistogram } from "@deepnote-rag/core"

/**
 * Metrics of LLM calls, updated by the client (`Client/CallTelemetry.ts`) and exported by the process's metrics
 * exporter (`@deepnote-rag/telemetry`'s OTLP layer reads every registered metric).
 * A call is one logical request (after retries, or a cache hit); an attempt is one HTTP request to one endpoint.
 */
export const LlmMetrics = {
  /** Tags: `role`, `model`, `outcome` (`ok`, `failed`, `cached`). */
  calls: taggableCounter("deepnote_llm_calls_total", {
    description: "LLM calls (after retries), by role, model and outcome",
    incremental: true
  }),
  /** Tags: `role`, `reason` (`permanent`, `attempts-exhausted`, `outage`, `stream-interrupted`), `class` (last attempt's failure class). */
  callFailures: taggableCounter("deepnote_llm_call_failures_total", {
    description: "LLM calls that failed for good, by role, reason and failure class",
    incremental: true
  }),
  /** Tags: `role`, `model`. Includes retries and backoff; cache hits are counted too. */
  callDuration: taggableHistogram(
    "deepnote_llm_call_duration_ms",
    latencyBoundariesMs,
    "LLM call latency in ms, retries included"
  ),
  /** Tags: `endpoint`, `outcome` (`ok` or the failure class). */
  attempts: taggableCounter("deepnote_llm_attempts_total", {
    description: "HTTP attempts to LLM endpoints, by endpoint and outcome",
    incremental: true
  }),
  /** Tags: `endpoint`, `class` (`http_429`, `http_overload` (503, 529), `http_5xx`, `http_4xx`, `timeout`, `transport`, `malformed`, `unavailable`, `model_not_served`). */
  attemptFailures: taggableCounter("deepnote_llm_attempt_failures_total", {
    description: "Failed HTTP attempts to LLM endpoints, by endpoint and failure class",
    incremental: true
  }),
  /** Tags: `endpoint`. */
  attemptDuration: taggableHistogram(
    "deepnote_llm_attempt_duration_ms",
    latencyBoundariesMs,
    "LLM HTTP attempt latency in ms"
  ),
  /** Tags: `endpoint`. Goes up and down (an OTLP non-monotonic sum). */
  inFlight: taggableCounter("deepnote_llm_in_flight", { description: "LLM HTTP requests in flight, by endpoint" }),
  /** Tags: `role`, `model`, `type` (`input`, `output`). Tokens the servers processed (cache hits excluded). */
  tokens: taggableCounter("deepnote_llm_tokens_total", {
    description: "LLM tokens by role, model and type (input, output)",
    incremental: true
  }),
  /** Tags: `role`, `model`. */
  cacheHits: taggableCounter("deepnote_llm_cache_hits_total", {
    description: "LLM calls answered from the response cache",
    incremental: true
  })
} as const
