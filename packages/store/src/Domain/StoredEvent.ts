import { PipelineEvent } from "@deepnote/core"
import { Schema } from "effect"

/** A pipeline event as logged for a run. `seq` is global and increasing: use it as the SSE `id` / `Last-Event-ID`. */
export const StoredEvent = Schema.Struct({
  seq: Schema.Int,
  runId: Schema.String,
  itemId: Schema.String,
  event: PipelineEvent,
  createdAt: Schema.Date
})
export type StoredEvent = typeof StoredEvent.Type
