import { seededRandom } from "@deepnote-rag/core"
import { Schema } from "effect"

/** A confidence interval of a mean, on the same scale as the scores given. */
export const ConfidenceInterval = Schema.Struct({
  low: Schema.Number,
  high: Schema.Number,
  level: Schema.Number,
  resamples: Schema.Int,
  seed: Schema.Int
})
export type ConfidenceInterval = typeof ConfidenceInterval.Type

export interface BootstrapOptions {
  /** Default 1000. */
  readonly resamples?: number
  /** Default 0.95. */
  readonly level?: number
  /** PRNG seed; default 20241011. The same seed and scores always give the same interval. */
  readonly seed?: number
}

const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)

/**
 * Percentile-bootstrap interval of the mean of per-question scores: resample the questions with replacement
 * `resamples` times (seeded mulberry32 PRNG), take the (1-level)/2 and (1+level)/2 quantiles of the resampled means.
 * `undefined` for fewer than 2 scores. Takes any array-like (reports pass a compact `Float64Array` per metric).
 */
export const bootstrapMeanCi = (
  scores: ArrayLike<number>,
  options: BootstrapOptions = {}
): ConfidenceInterval | undefined => {
  if (scores.length < 2) return undefined
  const resamples = options.resamples ?? 1000
  const level = options.level ?? 0.95
  const seed = options.seed ?? 20241011
  const random = seededRandom(seed)
  const means = new Array<number>(resamples)
  for (let r = 0; r < resamples; r++) {
    let sum = 0
    for (let i = 0; i < scores.length; i++) sum += scores[Math.floor(random() * scores.length)]!
    means[r] = sum / scores.length
  }
  means.sort((a, b) => a - b)
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!
  return { low: at((1 - level) / 2), high: at((1 + level) / 2), level, resamples, seed }
}

export { mean }
