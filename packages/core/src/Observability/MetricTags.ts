import { Metric, type MetricBoundaries, MetricKey, type MetricKeyType, MetricLabel, type MetricState } from "effect"

type CounterMetric = Metric.Metric<
  MetricKeyType.MetricKeyType.Counter<number>,
  number,
  MetricState.MetricState.Counter<number>
>
type HistogramMetric = Metric.Metric<MetricKeyType.MetricKeyType.Histogram, number, MetricState.MetricState.Histogram>

// Why not `Metric.taggedWithLabels`: it merges its labels into a new array on every update, so Effect's per-metric hook
// cache (keyed by that array) always misses and each update builds and hashes a new MetricKey (formatting it as text).
// On an LLM call that costs more CPU than the call's own work. A metric made here keeps its key, and `withTags`
// returns a metric built from the tagged key, cached per tag set, whose updates hit the hook cache.
// Tags are low-cardinality (role, model, endpoint, outcome), so the caches stay small.
const counterKeys = new WeakMap<object, MetricKey.MetricKey.Counter<number>>()
const histogramKeys = new WeakMap<object, MetricKey.MetricKey.Histogram>()
const taggedCounters = new WeakMap<object, Map<string, CounterMetric>>()
const taggedHistograms = new WeakMap<object, Map<string, HistogramMetric>>()

/** A counter whose tagged variants are cheap to update (see `withTags`). */
export const taggableCounter = (
  name: string,
  options: { readonly description?: string; readonly incremental?: boolean }
): CounterMetric => {
  const key = MetricKey.counter(name, options)
  const metric = Metric.fromMetricKey(key)
  counterKeys.set(metric, key)
  return metric
}

/** A histogram whose tagged variants are cheap to update (see `withTags`). */
export const taggableHistogram = (
  name: string,
  boundaries: MetricBoundaries.MetricBoundaries,
  description: string
): HistogramMetric => {
  const key = MetricKey.histogram(name, boundaries, description)
  const metric = Metric.fromMetricKey(key)
  histogramKeys.set(metric, key)
  return metric
}

const cacheKey = (tags: Readonly<Record<string, string>>) =>
  Object.entries(tags).map(([k, v]) => `${k}\u0000${v}`).join("\u0001")
const labels = (tags: Readonly<Record<string, string>>) => Object.entries(tags).map(([k, v]) => MetricLabel.make(k, v))

const cached = <M>(
  caches: WeakMap<object, Map<string, M>>,
  metric: object,
  tags: Readonly<Record<string, string>>,
  make: () => M
): M => {
  let byTags = caches.get(metric)
  if (byTags === undefined) caches.set(metric, byTags = new Map())
  const k = cacheKey(tags)
  let found = byTags.get(k)
  if (found === undefined) byTags.set(k, found = make())
  return found
}

/**
 * The metric with these tags (labels) added: `withTags(LlmMetrics.calls, { role, model, outcome })`. For metrics made
 * with `taggableCounter`/`taggableHistogram` the result is cached and cheap to update; any other metric gets
 * `Metric.taggedWithLabels`.
 */
export function withTags(metric: CounterMetric, tags: Readonly<Record<string, string>>): CounterMetric
export function withTags(metric: HistogramMetric, tags: Readonly<Record<string, string>>): HistogramMetric
export function withTags<Type, In, Out>(
  metric: Metric.Metric<Type, In, Out>,
  tags: Readonly<Record<string, string>>
): Metric.Metric<Type, In, Out>
export function withTags<Type, In, Out>(
  metric: Metric.Metric<Type, In, Out>,
  tags: Readonly<Record<string, string>>
): Metric.Metric<Type, In, Out> | CounterMetric | HistogramMetric {
  const counterKey = counterKeys.get(metric)
  if (counterKey !== undefined) {
    return cached(
      taggedCounters,
      metric,
      tags,
      () => Metric.fromMetricKey(MetricKey.taggedWithLabels(counterKey, labels(tags)))
    )
  }
  const histogramKey = histogramKeys.get(metric)
  if (histogramKey !== undefined) {
    return cached(
      taggedHistograms,
      metric,
      tags,
      () => Metric.fromMetricKey(MetricKey.taggedWithLabels(histogramKey, labels(tags)))
    )
  }
  return Metric.taggedWithLabels(metric, labels(tags))
}
