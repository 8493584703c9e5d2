import { DocumentInput } from "@deepnote-rag/api"
import { decodeIssues } from "@deepnote-rag/core"
import { type CorpusDocument, type Line, passageId, printable, readLineBatches } from "@deepnote-rag/retrieval"
import { Effect, Either, Schema, Stream } from "effect"
import { isUtf8 } from "node:buffer"
import * as Fs from "node:fs"
import { fieldPath } from "../Http/ErrorResponses.js"
import type { UploadKind } from "../Uploads/RecordCounter.js"
import { IngestFailed } from "./IngestProtocol.js"

/** One record of an upload: where it is (`line 12`, `documents[11]`) and its document, or what is wrong with it. */
export type UploadRecord =
  | { readonly where: string; readonly document: CorpusDocument }
  | { readonly where: string; readonly problem: string }

const decodeDocument = Schema.decodeUnknownEither(DocumentInput)

const toRecord = (where: string, value: unknown): UploadRecord => {
  const decoded = decodeDocument(value, { errors: "all" })
  if (Either.isLeft(decoded)) {
    const issues = decodeIssues(decoded.left)
    const first = issues[0]
    const field = first === undefined ? "" : fieldPath(first.path)
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
    const message = printable(first?.message ?? "does not match the document schema", 300)
    return { where, problem: `${field === "" ? "" : `${printable(field, 100)}: `}${message}${more}` }
  }
  const d = decoded.right
  const title = d.title ?? ""
  return { where, document: { id: d.id ?? passageId(title, d.text), title, text: d.text, metadata: d.metadata } }
}

/** A line with anything but ASCII blanks is a record (the rule `RecordCounter` counts with). */
const isRecord = (line: Line) => /[^ \t\r]/u.test(line.text)

const fromLine = (line: Line): UploadRecord => {
  const where = `line ${line.number}`
  if (line.binary) return { where, problem: "not UTF-8 text (NUL bytes / invalid UTF-8)" }
  return Either.match(Either.try(() => JSON.parse(line.text) as unknown), {
    onLeft: (e) => ({ where, problem: `invalid JSON: ${printable(e instanceof Error ? e.message : String(e), 200)}` }),
    onRight: (value) => toRecord(where, value)
  })
}

const jsonLines = (file: string, batchSize: number) =>
  readLineBatches(file, { offset: 0, line: 0 }, batchSize).pipe(
    Stream.map((batch) => batch.lines.filter(isRecord).map(fromLine)),
    Stream.mapError((e) => new IngestFailed({ message: `the stored upload cannot be read: ${e.message}` }))
  )

/** A JSON array is parsed whole (it is one value; its size is bounded by the upload limit). */
const jsonArray = (file: string, batchSize: number) =>
  Stream.unwrap(Effect.gen(function*() {
    const bytes = yield* Effect.tryPromise({
      try: () => Fs.promises.readFile(file),
      catch: (e) => new IngestFailed({ message: `the stored upload cannot be read: ${String(e)}` })
    })
    if (!isUtf8(bytes)) return yield* new IngestFailed({ message: "the upload is not UTF-8 text (invalid UTF-8)" })
    const value = yield* Either.try(() => JSON.parse(bytes.toString("utf8")) as unknown).pipe(
      Either.mapLeft((e) =>
        new IngestFailed({
          message: `the body is not valid JSON: ${printable(e instanceof Error ? e.message : String(e), 200)}`
        })
      )
    )
    if (!Array.isArray(value)) {
      return yield* new IngestFailed({ message: "the body must be a JSON array of documents (or JSON Lines)" })
    }
    const items: ReadonlyArray<unknown> = value
    const batches = Array.from({ length: Math.ceil(items.length / batchSize) }, (_, k) => k * batchSize)
    return Stream.fromIterable(batches).pipe(
      Stream.map((start) =>
        items.slice(start, start + batchSize).map((item, i) => toRecord(`documents[${start + i}]`, item))
      )
    )
  }))

/** The records of a stored upload, decoded as the API's `DocumentInput`, in batches of about `batchSize`. */
export const uploadRecords = (
  file: string,
  kind: UploadKind,
  batchSize: number
): Stream.Stream<ReadonlyArray<UploadRecord>, IngestFailed> =>
  kind === "jsonl" ? jsonLines(file, batchSize) : jsonArray(file, batchSize)
