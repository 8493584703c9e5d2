import { Schema } from "effect"
import { Role } from "./Profile.js"

/** A retrieval backend failed (index missing, server down, bad reply). */
export class RetrievalError extends Schema.TaggedError<RetrievalError>()("RetrievalError", {
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
