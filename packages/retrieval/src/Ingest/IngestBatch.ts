import { Effect } from "effect"
import { InvalidRecord } from "../Domain/Errors.js"
import type { IngestProgress, RecordIssue } from "../Domain/Ingest.js"
import type { DocumentBatch } from "./CorpusReader.js"

/**
 * A batch's invalid records, named with the file as it was given; with `strict`, the first one fails the ingest before
 * the batch is written or sent (the embedded index and a Meilisearch upload check their batches here).
 */
export const batchIssues = (
  batch: DocumentBatch,
  file: string,
  strict: boolean
): Effect.Effect<ReadonlyArray<RecordIssue>, InvalidRecord> => {
  const issues = batch.issues.map((issue) => ({ ...issue, file }))
  const first = issues[0]
  return strict && first !== undefined
    ? Effect.fail(new InvalidRecord({ file: first.file, line: first.line, field: first.field, reason: first.message }))
    : Effect.succeed(issues)
}

/** What `onProgress` is told after a batch of the `index`-th (0-based) of `files` files, with the file's counts so far. */
export const batchProgress = (
  collection: string,
  input: { readonly file: string; readonly stat: { readonly size: number } },
  index: number,
  files: number,
  batch: DocumentBatch,
  counts: { readonly added: number; readonly skipped: number; readonly invalid: number }
): IngestProgress => ({
  collection,
  file: input.file,
  fileIndex: index + 1,
  files,
  line: batch.line,
  bytesRead: batch.bytesRead,
  fileBytes: input.stat.size,
  added: counts.added,
  skipped: counts.skipped,
  invalid: counts.invalid
})
