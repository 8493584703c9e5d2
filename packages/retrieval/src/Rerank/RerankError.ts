import { Schema } from "effect"

/** A rerank call failed. `transient` failures (timeouts, connection errors, 408/429/5xx) are retried. */
export class RerankError extends Schema.TaggedError<RerankError>()("RerankError", {
  message: Schema.String,
  url: Schema.String,
  status: Schema.optional(Schema.Number),
  transient: Schema.Boolean,
  cause: Schema.optional(Schema.Defect)
}) {}

const transientStatuses = new Set([408, 425, 429, 500, 502, 503, 504])

export const isTransientStatus = (status: number): boolean => transientStatuses.has(status)
