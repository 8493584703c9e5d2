import { Schema } from "effect"

/** A Meilisearch call or task failed (server unreachable, API error, failed task, unexpected reply). */
export class MeiliError extends Schema.TaggedError<MeiliError>()("MeiliError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}
