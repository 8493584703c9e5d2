import { decodeIssues } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { Data, Effect, Either, ParseResult, Schema } from "effect"
import { SpanRecord } from "./SpanRecord.js"

/** A line of a trace file that is not a span record (e.g. the last line of a file cut by a crash). */
export interface BadTraceLine {
  readonly path: string
  readonly line: number
  readonly message: string
}

export interface TraceFileContents {
  readonly spans: ReadonlyArray<SpanRecord>
  readonly badLines: ReadonlyArray<BadTraceLine>
}

/** The trace file cannot be read at all. */
export class TraceFileError
  extends Data.TaggedError("TraceFileError")<{ readonly path: string; readonly message: string }>
{}

const decodeLine = Schema.decodeUnknownEither(Schema.parseJson(SpanRecord))

const describe = (error: ParseResult.ParseError): string =>
  decodeIssues(error)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ")

/** Decodes trace-file text; blank lines are skipped, bad lines are reported with their 1-based line number. */
export const parseTraceFile = (path: string, text: string): TraceFileContents => {
  const spans: Array<SpanRecord> = []
  const badLines: Array<BadTraceLine> = []
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim()
    if (line === "") return
    const decoded = decodeLine(line)
    if (Either.isRight(decoded)) spans.push(decoded.right)
    else badLines.push({ path, line: index + 1, message: describe(decoded.left) })
  })
  return { spans, badLines }
}

/** Reads and decodes a trace file written by `traceFileLayer`. */
export const readTraceFile = (path: string): Effect.Effect<TraceFileContents, TraceFileError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) =>
        new TraceFileError({
          path,
          message: e._tag === "SystemError" && e.reason === "NotFound"
            ? `no trace file at ${path}`
            : `cannot read ${path}: ${e.message}`
        })
      )
    )
    return parseTraceFile(path, text)
  })

/** `file:line: message`, the way editors and terminals link to a place in a file. */
export const formatBadLine = (bad: BadTraceLine): string => `${bad.path}:${bad.line}: ${bad.message}`
