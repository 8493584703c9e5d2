import { PipelineResult, Question } from "@deepnote/core"
import { Data, Schema } from "effect"

/** Lifecycle of one question in a run. `running` items found on resume were cut off and run again. */
export const ItemStatus = Schema.Literal("pending", "running", "done", "failed")
export type ItemStatus = typeof ItemStatus.Type

/** Why an item failed: the error's tag and message (enough to decide whether to retry it). */
export const ItemError = Schema.Struct({
  tag: Schema.String,
  message: Schema.String
})
export type ItemError = typeof ItemError.Type

/** An item still to run (pending, or running when the previous process stopped). */
export const PendingItem = Schema.Struct({
  itemId: Schema.String,
  seq: Schema.Int,
  status: ItemStatus,
  attempts: Schema.Int,
  question: Question
})
export type PendingItem = typeof PendingItem.Type

/** One item with its outcome. `result` is set when `done`, `error` when `failed`. */
export class ItemRecord extends Schema.Class<ItemRecord>("ItemRecord")({
  runId: Schema.String,
  itemId: Schema.String,
  seq: Schema.Int,
  status: ItemStatus,
  attempts: Schema.Int,
  question: Question,
  result: Schema.optional(PipelineResult),
  error: Schema.optional(ItemError),
  startedAt: Schema.optional(Schema.Date),
  finishedAt: Schema.optional(Schema.Date),
  elapsedMs: Schema.optional(Schema.Number)
}) {}

/**
 * The outcome of claiming a question for a queue job: the question is this job's to execute (`Claimed`, with its
 * attempt count after this claim), or it is not (`Taken`: done, failed by this very job, or running under another job).
 */
export type ItemClaim = Data.TaggedEnum<{
  Claimed: { readonly item: PendingItem }
  Taken: { readonly status: ItemStatus }
}>
export const ItemClaim = Data.taggedEnum<ItemClaim>()
