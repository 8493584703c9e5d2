import { Schema } from "effect"

/**
 * Why a Meilisearch call failed: the server could not be reached (or did not answer in time), it refused the request
 * (an API error: bad key, unknown index, invalid settings), an asynchronous task failed or did not finish by its
 * deadline, or a reply did not have the documented shape.
 */
export const MeiliFailure = Schema.Literal("unreachable", "api", "task", "deadline", "reply")
export type MeiliFailure = typeof MeiliFailure.Type

/** A Meilisearch call or task failed; `message` is one line naming the server, the index and the cause. */
export class MeiliError extends Schema.TaggedError<MeiliError>()("MeiliError", {
  message: Schema.String,
  reason: MeiliFailure,
  /** HTTP status of an API error. */
  status: Schema.optional(Schema.Number),
  /** Meilisearch's error code (`invalid_api_key`, `index_not_found`, `invalid_document_id`, …). */
  code: Schema.optional(Schema.String),
  /** Worth retrying: connection errors, timeouts, 408/429/5xx. */
  transient: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  cause: Schema.optional(Schema.Defect)
}) {}
