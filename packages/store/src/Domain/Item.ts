import { AlignItemResult, PipelineResult, Question } from "@deepnote-rag/core"
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

/** What a done item stores: an answered question's result, or an align question's preference pairs. */
export const ItemResult = Schema.Union(PipelineResult, AlignItemResult)
export type ItemResult = typeof ItemResult.Type

/**
 * One item with its outcome. `result` is set when `done` (`align` instead, for an align run's item), `error` when
 * `failed`.
 */
export class ItemRecord extends Schema.Class<ItemRecord>("ItemRecord")({
  runId: Schema.String,
  itemId: Schema.String,
  seq: Schema.Int,
  status: ItemStatus,
  attempts: Schema.Int,
  question: Question,
  result: Schema.optional(PipelineResult),
  align: Schema.optional(AlignItemResult),
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
