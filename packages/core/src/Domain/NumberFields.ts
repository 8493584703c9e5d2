import { Schema } from "effect"

/**
 * Numbers of settings and specs whose every failure names the field: `PositiveInt("topK")` rejects 0, 1.5 and NaN alike
 * with "topK must be a positive integer" (Effect's own messages say "Expected an integer" without the field). The
 * JSON Schema of each stays what its refinements say (`integer`, `exclusiveMinimum` …).
 */
export const PositiveInt = (field: string) => {
  const message = () => `${field} must be a positive integer`
  return Schema.Number.pipe(Schema.int({ message }), Schema.positive({ message }))
}

/** A duration in milliseconds, 0 allowed. */
export const Millis = (field: string) =>
  Schema.Number.pipe(Schema.nonNegative({ message: () => `${field} must be ≥ 0 (milliseconds)` }))

export const PositiveNumber = (field: string) =>
  Schema.Number.pipe(Schema.positive({ message: () => `${field} must be > 0` }))

export const NonNegative = (field: string) =>
  Schema.Number.pipe(Schema.nonNegative({ message: () => `${field} must be ≥ 0` }))

export const Probability = (field: string) =>
  Schema.Number.pipe(Schema.between(0, 1, { message: () => `${field} must be between 0 and 1` }))
