import { Clock, Effect, Metric } from "effect"
import type { PipelineResult } from "../Domain/PipelineResult.js"
import type { Profile } from "../Domain/Profile.js"
import { withTags } from "../Observability/MetricTags.js"
import { PipelineMetrics } from "../Observability/PipelineMetrics.js"

/**
 * Records a question's outcome, latency, steps and stop reason in the pipeline metrics, and its stop reason on the
 * current span (`deepnote.question`).
 */
export const observeQuestion =
  (profile: Profile) => <E, R>(self: Effect.Effect<PipelineResult, E, R>): Effect.Effect<PipelineResult, E, R> =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const exit = yield* Effect.exit(self)
      const elapsed = (yield* Clock.currentTimeMillis) - start
      const outcome = exit._tag === "Success" ? "done" : "failed"
      yield* Metric.increment(withTags(PipelineMetrics.questions, { profile, outcome }))
      yield* Metric.update(withTags(PipelineMetrics.questionDuration, { profile, outcome }), elapsed)
      if (exit._tag === "Success") {
        const result = exit.value
        yield* Metric.incrementBy(withTags(PipelineMetrics.steps, { profile }), result.counters.steps)
        yield* Metric.increment(withTags(PipelineMetrics.stopReasons, { profile, reason: result.stopReason }))
        yield* Effect.annotateCurrentSpan({
          "deepnote.stop_reason": result.stopReason,
          "deepnote.steps": result.counters.steps
        })
      }
      return yield* exit
    })
