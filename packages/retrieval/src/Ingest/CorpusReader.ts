import { Effect, Either, Option, ParseResult, Stream } from "effect"
import * as Path from "node:path"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import { type CorpusFileNotFound, InvalidCorpusFile } from "../Domain/Errors.js"
import type { CorpusFormat, CorpusFormatOption, RecordIssue } from "../Domain/Ingest.js"
import { printable } from "../Domain/Printable.js"
import { type LineBatch, type ReadFrom, readLineBatches } from "./LineReader.js"
import { detectJsonFormat, type JsonFormat, jsonFormats } from "./RecordFormats.js"
import { makeTextSplitter } from "./TextSplitter.js"

/** Passages decoded from a run of lines, the records that failed, and where a resumed read would start. */
export interface DocumentBatch {
  readonly documents: ReadonlyArray<CorpusDocument>
  readonly issues: ReadonlyArray<RecordIssue>
  /** Resume point after this batch, or undefined when the format cannot resume mid-file (text, markdown). */
  readonly resumeAt: ReadFrom | undefined
  readonly line: number
  readonly bytesRead: number
}

export interface ReadOptions {
  readonly format: CorpusFormat
  readonly from: ReadFrom
  readonly batchSize: number
  readonly maxChars: number
}

const textExtensions = new Set([".txt", ".text"])
const markdownExtensions = new Set([".md", ".markdown", ".mdx"])

/** The format of a file: as given, else from its extension, else (JSON lines) from its first record's shape. */
export const resolveFormat = (
  file: string,
  option: CorpusFormatOption
): Effect.Effect<CorpusFormat, CorpusFileNotFound | InvalidCorpusFile> => {
  if (option === "2wiki") return Effect.succeed("hotpotqa")
  if (option !== "auto") return Effect.succeed(option)
  const ext = Path.extname(file).toLowerCase()
  if (markdownExtensions.has(ext)) return Effect.succeed("markdown")
  if (textExtensions.has(ext) || ![".jsonl", ".ndjson", ".json"].includes(ext)) return Effect.succeed("text")
  return readLineBatches(file, { offset: 0, line: 0 }, 1).pipe(
    Stream.map((b) => b.lines[0]!.text),
    Stream.filter((text) => text.trim().length > 0),
    Stream.runHead,
    Effect.map(Option.match({
      onNone: (): CorpusFormat => "documents",
      onSome: (text) =>
        Either.match(Either.try(() => JSON.parse(text) as unknown), {
          onLeft: () => "documents",
          onRight: detectJsonFormat
        })
    }))
  )
}

const issueOf = (file: string, line: number, error: ParseResult.ParseError): RecordIssue => {
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const field = first === undefined || first.path.length === 0 ? undefined : first.path.map(String).join(".")
  return {
    file,
    line,
    field: field === undefined ? undefined : printable(field, 200),
    message: printable(first?.message ?? error.message, 300)
  }
}

const decodeJsonBatch = (file: string, format: JsonFormat, batch: LineBatch): DocumentBatch => {
  const decode = jsonFormats[format]
  const documents: Array<CorpusDocument> = []
  const issues: Array<RecordIssue> = []
  for (const { binary, number, text } of batch.lines) {
    if (text.trim().length === 0) continue
    if (binary) {
      issues.push({ file, line: number, message: "not UTF-8 text (NUL bytes / invalid UTF-8)" })
      continue
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e)
      issues.push({ file, line: number, message: `invalid JSON: ${printable(reason, 200)}` })
      continue
    }
    const decoded = decode(json)
    if (Either.isLeft(decoded)) issues.push(issueOf(file, number, decoded.left))
    else for (const d of decoded.right) documents.push(d)
  }
  return {
    documents,
    issues,
    resumeAt: { offset: batch.endOffset, line: batch.endLine },
    line: batch.endLine,
    bytesRead: batch.endOffset
  }
}

const splitText = (
  file: string,
  options: ReadOptions
): Stream.Stream<DocumentBatch, CorpusFileNotFound | InvalidCorpusFile> => {
  const splitter = makeTextSplitter({
    markdown: options.format === "markdown",
    maxChars: options.maxChars,
    defaultTitle: Path.basename(file, Path.extname(file))
  })
  let last = { line: 0, bytesRead: 0 }
  const batches = readLineBatches(file, { offset: 0, line: 0 }, options.batchSize).pipe(
    Stream.mapEffect((batch) => {
      const binary = batch.lines.find((l) => l.binary)
      if (binary !== undefined) {
        return Effect.fail(
          new InvalidCorpusFile({
            file,
            problem: "binary",
            detail: `line ${binary.number} has NUL bytes or invalid UTF-8`
          })
        )
      }
      last = { line: batch.endLine, bytesRead: batch.endOffset }
      const documents = batch.lines.flatMap((l) => splitter.push(l.text))
      return Effect.succeed<DocumentBatch>({ documents, issues: [], resumeAt: undefined, ...last })
    })
  )
  const rest = Stream.fromEffect(
    Effect.sync((): DocumentBatch => ({ documents: splitter.flush(), issues: [], resumeAt: undefined, ...last }))
  )
  return Stream.concat(batches, rest)
}

/**
 * Streams the passages of one corpus file in batches. JSON-lines formats resume from a byte offset; text and
 * markdown files are always read whole (their passages deduplicate by id on a rerun).
 */
export const readCorpus = (
  file: string,
  options: ReadOptions
): Stream.Stream<DocumentBatch, CorpusFileNotFound | InvalidCorpusFile> => {
  switch (options.format) {
    case "text":
    case "markdown":
      return splitText(file, options)
    default: {
      const format = options.format
      return readLineBatches(file, options.from, options.batchSize).pipe(
        Stream.map((b) => decodeJsonBatch(file, format, b))
      )
    }
  }
}
