import type { Question } from "@deepnote-rag/core"
import { FileSystem } from "@effect/platform"
import { Effect, Either, Stream } from "effect"
import type { QaPair } from "../Metrics/Asqa.js"
import { type BadLine, DatasetError, formatBadLine } from "./DatasetError.js"
import { type DatasetFormat, detectFormat } from "./DatasetFormat.js"
import { toDatasetItem } from "./ToQuestion.js"

export interface LoadOptions {
  /** Force a format; default: detected from the first record that parses as a JSON object. */
  readonly format?: DatasetFormat | undefined
  /** Stop after this many good questions. */
  readonly limit?: number | undefined
  /** `fail` (default): the first bad record fails the load with its file:line and field; `skip`: report and go on. */
  readonly onBadLine?: "skip" | "fail" | undefined
}

/** A loaded dataset: its questions in file order, the records skipped, and ASQA qa_pairs by question id. */
export interface LoadedDataset {
  readonly path: string
  readonly format: DatasetFormat
  readonly questions: ReadonlyArray<Question>
  readonly badLines: ReadonlyArray<BadLine>
  readonly qaPairs: ReadonlyMap<string, ReadonlyArray<QaPair>>
  /** Non-blank records read (up to the limit). */
  readonly records: number
}

interface State {
  format: DatasetFormat | undefined
  readonly questions: Array<Question>
  readonly badLines: Array<BadLine>
  readonly qaPairs: Map<string, ReadonlyArray<QaPair>>
  readonly ids: Set<string>
  records: number
}

const parseJson = (text: string): Either.Either<unknown, string> =>
  Either.try({
    try: (): unknown => JSON.parse(text),
    catch: (e) => `invalid JSON (${e instanceof Error ? e.message : String(e)})`
  })

/** One numbered record, parsed (or the reason it is not JSON). */
interface RawRecord {
  readonly line: number
  readonly json: Either.Either<unknown, string>
}

/** Numbered records: JSONL lines, or the elements of a top-level JSON array (`.json` files of the official sets). */
const records = (fs: FileSystem.FileSystem, path: string): Stream.Stream<RawRecord, DatasetError> => {
  const unreadable = (e: { readonly message: string }) =>
    new DatasetError({ path, reason: `cannot read: ${e.message}` })
  if (path.endsWith(".json")) {
    return Stream.unwrap(Effect.gen(function*() {
      const text = yield* Effect.mapError(fs.readFileString(path), unreadable)
      const parsed = parseJson(text)
      if (Either.isLeft(parsed)) return yield* new DatasetError({ path, reason: parsed.left })
      const values: ReadonlyArray<unknown> = Array.isArray(parsed.right) ? parsed.right : [parsed.right]
      return Stream.fromIterable(values.map((value, i): RawRecord => ({ line: i + 1, json: Either.right(value) })))
    }))
  }
  return fs.stream(path).pipe(
    Stream.mapError(unreadable),
    Stream.decodeText(),
    Stream.splitLines,
    Stream.zipWithIndex,
    Stream.filter(([text]) => text.trim().length > 0),
    Stream.map(([text, i]): RawRecord => ({ line: i + 1, json: parseJson(text) }))
  )
}

/**
 * Loads a dataset file, streaming JSONL line by line. Every record is decoded with its format's Schema; a bad record
 * is reported as `file:line: field: message`. Question ids must be unique within the file.
 */
export const loadDataset = (
  path: string,
  options: LoadOptions = {}
): Effect.Effect<LoadedDataset, DatasetError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const limit = options.limit ?? Number.POSITIVE_INFINITY
    const state: State = {
      format: options.format,
      questions: [],
      badLines: [],
      qaPairs: new Map(),
      ids: new Set(),
      records: 0
    }
    const bad = (line: number, message: string, field?: string): Effect.Effect<void, DatasetError> => {
      const report: BadLine = { path, line, field, message }
      if (options.onBadLine === "skip") return Effect.sync(() => void state.badLines.push(report))
      return Effect.fail(new DatasetError({ path, line, field, reason: message }))
    }
    const step = ({ json: parsed, line }: RawRecord): Effect.Effect<void, DatasetError> =>
      Effect.gen(function*() {
        state.records++
        if (Either.isLeft(parsed)) return yield* bad(line, parsed.left)
        if (state.format === undefined) {
          const detected = detectFormat(parsed.right)
          if (detected === undefined) {
            return yield* new DatasetError({
              path,
              line,
              reason: "cannot detect the dataset format from this record; pass a format"
            })
          }
          state.format = detected
        }
        const item = toDatasetItem(state.format, parsed.right, line)
        if (Either.isLeft(item)) return yield* bad(line, item.left.message, item.left.field)
        const { qaPairs, question } = item.right
        if (state.ids.has(question.id)) return yield* bad(line, `duplicate question id ${question.id}`, "id")
        state.ids.add(question.id)
        state.questions.push(question)
        if (qaPairs !== undefined) state.qaPairs.set(question.id, qaPairs)
      })
    yield* Stream.runForEachWhile(records(fs, path), (record) =>
      Effect.map(step(record), () => state.questions.length < limit))
    if (state.format === undefined) {
      return yield* new DatasetError({ path, reason: "no records" })
    }
    if (state.badLines.length > 0) {
      yield* Effect.logWarning(
        `${state.badLines.length} bad records skipped; first: ${formatBadLine(state.badLines[0]!)}`
      )
    }
    return {
      path,
      format: state.format,
      questions: state.questions,
      badLines: state.badLines,
      qaPairs: state.qaPairs,
      records: state.records
    }
  }).pipe(Effect.withSpan("Datasets.load", { attributes: { "deepnote.dataset.path": path } }))
