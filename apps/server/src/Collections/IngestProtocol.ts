import { Schema } from "effect"

/** The upload could not be indexed; the message is what the job's status shows (bad records with their numbers). */
export class IngestFailed extends Schema.TaggedError<IngestFailed>()("IngestFailed", { message: Schema.String }) {}

/** Where an ingest stands: sent when validation starts, when it passed, and after every committed batch. */
export const IngestProgress = Schema.Struct({
  phase: Schema.Literal("validating", "indexing"),
  /** Valid documents in the upload (0 while validating). */
  documents: Schema.NonNegativeInt,
  added: Schema.NonNegativeInt,
  skipped: Schema.NonNegativeInt
})
export type IngestProgress = typeof IngestProgress.Type

/** The first message to an ingest worker: the home whose collections it writes. */
export class InitialMessage extends Schema.TaggedRequest<InitialMessage>()("InitialMessage", {
  failure: Schema.Never,
  success: Schema.Void,
  payload: { home: Schema.String }
}) {}

/**
 * Validates every record of a stored upload, then (if all are valid) adds them to the collection in batches of
 * `batchSize` (one transaction each), streaming progress.
 */
export class IngestUpload extends Schema.TaggedRequest<IngestUpload>()("IngestUpload", {
  failure: IngestFailed,
  success: IngestProgress,
  payload: {
    /** The collection's stored name (tenant namespace included). */
    collection: Schema.String,
    file: Schema.String,
    kind: Schema.Literal("jsonl", "json"),
    batchSize: Schema.Int.pipe(Schema.positive())
  }
}) {}

export const IngestRequest = Schema.Union(InitialMessage, IngestUpload)
export type IngestRequest = typeof IngestRequest.Type
