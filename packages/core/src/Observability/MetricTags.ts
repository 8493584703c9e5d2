import { Metric, MetricLabel } from "effect"

/** The metric with these tags (labels) added: `withTags(LlmMetrics.calls, { role, model, outcome })`. */
export const withTags = <Type, In, Out>(
  metric: Metric.Metric<Type, In, Out>,
  tags: Readonly<Record<string, string>>
): Metric.Metric<Type, In, Out> =>
  Metric.taggedWithLabels(metric, Object.entries(tags).map(([key, value]) => MetricLabel.make(key, value)))
