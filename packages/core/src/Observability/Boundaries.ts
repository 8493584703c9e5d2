import { MetricBoundaries } from "effect"

/** Latency buckets in ms: 1 ms … ~4.4 min (doubling), wide enough for a cache hit and a long LLM retry chain. */
export const latencyBoundariesMs = MetricBoundaries.exponential({ start: 1, factor: 2, count: 19 })
