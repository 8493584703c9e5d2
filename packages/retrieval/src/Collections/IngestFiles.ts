import { Clock, Effect, Option, Stream } from "effect"
import type { IngestError } from "../Domain/Errors.js"
import type { FileSummary, IndexOptions, IngestSummary, RecordIssue } from "../Domain/Ingest.js"
import type { FtsIndex } from "../Index/FtsIndex.js"
import { checkCorpusInputs } from "../Ingest/CorpusInputs.js"
import { readCorpus } from "../Ingest/CorpusReader.js"
import { batchIssues, batchProgress } from "../Ingest/IngestBatch.js"

/**
 * Streams every file into the index, one transaction per batch, recording each file's resume point with its batch.
 * All files are checked (regular files, text not binary, format) before anything is written.
 */
export const ingestFiles = (
  index: FtsIndex,
  collection: string,
  files: ReadonlyArray<string>,
  options: IndexOptions
): Effect.Effect<IngestSummary, IngestError> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const inputs = yield* checkCorpusInputs(files, options.format)
    const strict = options.strict ?? false
    const maxErrors = options.maxReportedErrors ?? 1000
    const errors: Array<RecordIssue> = []
    const summaries: Array<FileSummary> = []
    let invalidTotal = 0

    for (const [i, input] of inputs.entries()) {
      const prior = Option.getOrUndefined(yield* index.progressOf(input.absolute))
      const same = prior !== undefined && prior.size === input.stat.size && prior.mtimeMs === input.stat.mtimeMs
      if (same && prior.done) {
        summaries.push({
          file: input.file,
          format: input.format,
          status: "unchanged",
          resumedFromLine: prior.line,
          added: 0,
          skipped: 0,
          invalid: 0
        })
        continue
      }
      const from = same ? { offset: prior.offset, line: prior.line } : { offset: 0, line: 0 }
      const counts = { added: 0, skipped: 0, invalid: 0, line: from.line }
      const base = { file: input.absolute, size: input.stat.size, mtimeMs: input.stat.mtimeMs }
      yield* readCorpus(input.absolute, {
        format: input.format,
        from,
        batchSize: options.batchSize ?? 2000,
        maxChars: options.maxChars ?? 1500
      }).pipe(
        Stream.runForEach((batch) =>
          Effect.gen(function*() {
            const issues = yield* batchIssues(batch, input.file, strict)
            const resume = batch.resumeAt ?? { offset: 0, line: 0 }
            const written = yield* index.addBatch(
              batch.documents,
              options.onDuplicate ?? "skip",
              { ...base, ...resume, done: false }
            )
            counts.added += written.added
            counts.skipped += written.skipped
            counts.invalid += issues.length
            counts.line = batch.line
            invalidTotal += issues.length
            for (const issue of issues) if (errors.length < maxErrors) errors.push(issue)
            if (options.onProgress !== undefined) {
              yield* options.onProgress(batchProgress(collection, input, i, inputs.length, batch, counts))
            }
          })
        )
      )
      yield* index.saveProgress({ ...base, offset: input.stat.size, line: counts.line, done: true })
      summaries.push({
        file: input.file,
        format: input.format,
        status: "indexed",
        resumedFromLine: from.line,
        added: counts.added,
        skipped: counts.skipped,
        invalid: counts.invalid
      })
    }
    const added = summaries.reduce((n, s) => n + s.added, 0)
    yield* index.finish((options.optimize ?? true) && added > 0)
    return {
      collection,
      indexFile: index.file,
      added,
      skipped: summaries.reduce((n, s) => n + s.skipped, 0),
      invalid: invalidTotal,
      errors,
      files: summaries,
      documents: yield* index.count,
      ms: (yield* Clock.currentTimeMillis) - started
    }
  })
