import { Schema } from "effect"
import { IntParam } from "./Names.js"

/**
 * A page of a listing, newest first (`GET /v1/runs`, `GET /v1/sweeps`): keyset paging, so that a page stays right while
 * newer entries are added.
 */
export const PageParams = Schema.Struct({
  /** Entries listed after this one (the previous page's `nextBefore`). */
  before: Schema.optional(Schema.String),
  /** Default 100. */
  limit: Schema.optional(IntParam(1, 1000))
})
export type PageParams = typeof PageParams.Type
