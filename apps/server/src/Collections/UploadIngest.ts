import { counted } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { Effect, Stream } from "effect"
import { IngestFailed, type IngestProgress, type IngestUpload } from "./IngestProtocol.js"
import { uploadRecords } from "./UploadRecords.js"

/** Bad records named in a failed job's message (all are counted). */
const reportedProblems = 5

interface Validation {
  readonly documents: number
  readonly invalid: number
  readonly problems: ReadonlyArray<string>
}

const nothingYet: Validation = { documents: 0, invalid: 0, problems: [] }

const validate = (request: IngestUpload) =>
  uploadRecords(request.file, request.kind, request.batchSize).pipe(
    Stream.runFold(nothingYet, (acc, batch): Validation => {
      let { documents, invalid } = acc
      const problems = [...acc.problems]
      for (const record of batch) {
        if ("document" in record) documents++
        else {
          invalid++
          if (problems.length < reportedProblems) problems.push(`${record.where}: ${record.problem}`)
        }
      }
      return { documents, invalid, problems }
    })
  )

const refusal = (v: Validation) => {
  const more = v.invalid > v.problems.length ? `; … (${v.invalid - v.problems.length} more)` : ""
  return new IngestFailed({
    message: `${counted(v.invalid, "invalid record")}, nothing was added: ${v.problems.join("; ")}${more}`
  })
}

/**
 * Runs in the ingest worker. Two passes over the stored upload: every record is validated first (so a bad one
 * fails the job with the first few problems and their line numbers, and nothing is added — as the synchronous
 * endpoint did with a 400), then the documents are added in batches, one transaction each, with progress after every
 * batch. Memory holds one batch, never the upload (a JSON array is the exception: it is one value).
 */
export const ingestUpload = (request: IngestUpload): Stream.Stream<IngestProgress, IngestFailed, Collections> =>
  Stream.concat(
    Stream.succeed<IngestProgress>({ phase: "validating", documents: 0, added: 0, skipped: 0 }),
    Stream.unwrap(Effect.gen(function*() {
      const checked = yield* validate(request)
      if (checked.invalid > 0) return yield* refusal(checked)
      if (checked.documents === 0) return yield* new IngestFailed({ message: "no documents in the upload" })
      const collections = yield* Collections
      const counts = { added: 0, skipped: 0 }
      const indexed = uploadRecords(request.file, request.kind, request.batchSize).pipe(
        Stream.mapEffect((batch) =>
          collections.add(request.collection, batch.flatMap((r) => "document" in r ? [r.document] : [])).pipe(
            Effect.mapError((e) =>
              new IngestFailed({ message: e._tag === "IndexError" ? `indexing failed: ${e.reason}` : e.message })
            ),
            Effect.map((written): IngestProgress => {
              counts.added += written.added
              counts.skipped += written.skipped
              return { phase: "indexing", documents: checked.documents, ...counts }
            })
          )
        )
      )
      return Stream.concat(
        Stream.succeed<IngestProgress>({ phase: "indexing", documents: checked.documents, added: 0, skipped: 0 }),
        indexed
      )
    }))
  )
