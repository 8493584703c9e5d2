import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric, MetricBoundaries, MetricLabel } from "effect"
import { taggableCounter, taggableHistogram, withTags } from "../src/Observability/MetricTags.js"

describe("withTags", () => {
  it.effect("a tagged counter is cached per tag set and lands on the same series as Metric.taggedWithLabels", () =>
    Effect.gen(function*() {
      const calls = taggableCounter("test_metric_tags_calls_total", { description: "test", incremental: true })
      const ok = withTags(calls, { role: "judge", outcome: "ok" })
      assert.strictEqual(withTags(calls, { role: "judge", outcome: "ok" }), ok, "same tags, same metric object")
      assert.notStrictEqual(withTags(calls, { role: "judge", outcome: "failed" }), ok)
      yield* Metric.increment(ok)
      ok.unsafeUpdate(2, [])
      const viaEffect = Metric.taggedWithLabels(calls, [
        MetricLabel.make("role", "judge"),
        MetricLabel.make("outcome", "ok")
      ])
      assert.strictEqual((yield* Metric.value(viaEffect)).count, 3)
      assert.strictEqual((yield* Metric.value(withTags(calls, { role: "judge", outcome: "failed" }))).count, 0)
      assert.strictEqual((yield* Metric.value(calls)).count, 0, "the untagged series is separate")
    }))

  it.effect("histograms too; metrics made elsewhere still get their tags", () =>
    Effect.gen(function*() {
      const latency = taggableHistogram("test_metric_tags_latency_ms", MetricBoundaries.fromIterable([1, 10]), "test")
      withTags(latency, { endpoint: "a" }).unsafeUpdate(5, [])
      yield* Metric.update(withTags(latency, { endpoint: "a" }), 7)
      assert.strictEqual((yield* Metric.value(Metric.tagged(latency, "endpoint", "a"))).count, 2)
      const plain = Metric.counter("test_metric_tags_plain_total")
      yield* Metric.increment(withTags(plain, { endpoint: "a" }))
      assert.strictEqual((yield* Metric.value(Metric.tagged(plain, "endpoint", "a"))).count, 1)
    }))
})
