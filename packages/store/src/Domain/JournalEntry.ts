import { Schema } from "effect"

/** Token usage reported by a model server for one call. */
export const Usage = Schema.Struct({
  promptTokens: Schema.optional(Schema.Int),
  completionTokens: Schema.optional(Schema.Int),
  totalTokens: Schema.optional(Schema.Int),
  cachedTokens: Schema.optional(Schema.Int),
  /** The model that answered (comma-separated when a call's LLM calls had several). */
  model: Schema.optional(Schema.String),
  /** The endpoint that answered (`cache` for a response-cache hit). */
  endpoint: Schema.optional(Schema.String)
})
export type Usage = typeof Usage.Type

/**
 * One journaled call of one item: call number `seq` (0, 1, … in call order) of `kind` (a role name such as
 * `init`/`plan`/`update`/`judge`/`answer`, or `retrieve`), the hash of its request, and its response as JSON.
 */
export class JournalEntry extends Schema.Class<JournalEntry>("JournalEntry")({
  runId: Schema.String,
  itemId: Schema.String,
  seq: Schema.Int.pipe(Schema.nonNegative()),
  kind: Schema.String,
  requestHash: Schema.String,
  /** The response, already encoded to JSON-compatible form by the caller's schema. */
  response: Schema.Unknown,
  usage: Schema.optional(Usage),
  latencyMs: Schema.Number,
  createdAt: Schema.Date
}) {}

/** Per-item totals of the journal: calls, tokens and time spent in calls. */
export const JournalTotals = Schema.Struct({
  itemId: Schema.String,
  calls: Schema.Int,
  llmCalls: Schema.Int,
  promptTokens: Schema.Int,
  completionTokens: Schema.Int,
  latencyMs: Schema.Number
})
export type JournalTotals = typeof JournalTotals.Type
