import { Schema } from "effect"
import { Role } from "./Profile.js"

/** A retrieval backend failed (index missing, server down, bad reply). */
export class RetrievalError extends Schema.TaggedError<RetrievalError>()("RetrievalError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * Texts could not be embedded: no embeddings endpoint, a server that failed or answered with something that is not
 * one vector per text, or vectors of another length than the collection's. The message is one line.
 */
export class EmbeddingError extends Schema.TaggedError<EmbeddingError>()("EmbeddingError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/** A role (note writer, planner, judge, answerer) could not produce its output. */
export class RoleError extends Schema.TaggedError<RoleError>()("RoleError", {
  role: Role,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

export type PipelineError = RetrievalError | RoleError
