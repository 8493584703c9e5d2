import { PipelineEvent } from "@deepnote-rag/core"
import { Schema } from "effect"

/**
 * A pipeline event as logged for a run. `seq` numbers a run's events 1, 2, 3, … without gaps, in commit order: use it
 * as the SSE `id` and resume after a `Last-Event-ID` with `EventLog.since(runId, { afterSeq })`.
 */
export const StoredEvent = Schema.Struct({
  seq: Schema.Int,
  runId: Schema.String,
  itemId: Schema.String,
  event: PipelineEvent,
  createdAt: Schema.Date
})
export type StoredEvent = typeof StoredEvent.Type
