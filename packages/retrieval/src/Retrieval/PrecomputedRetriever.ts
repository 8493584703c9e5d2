/**
 * Serves ranked lists from a JSONL file (`{question_id | query, passages: [{id, title, text, score}]}`) for parity
 * runs against published retrieval results: looked up by `context.questionId`, then by exact query text.
 */
import { firstDecodeIssue, RetrievalError, Retriever, type RetrieverService } from "@deepnote-rag/core"
import { Effect, Either, Layer, Schema, Stream } from "effect"
import * as Path from "node:path"
import { passageId } from "../Domain/CorpusDocument.js"
import { printable } from "../Domain/Printable.js"
import { checkCorpusFile } from "../Ingest/CorpusFile.js"
import { readLineBatches } from "../Ingest/LineReader.js"
import { type Candidate, retrievalPipeline } from "./RetrievalPipeline.js"

/** One line of a precomputed-retrieval file: the ranked passages of a question (or of one query text). */
export const PrecomputedRecord = Schema.Struct({
  question_id: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  query: Schema.optional(Schema.String),
  passages: Schema.Array(Schema.Struct({
    id: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
    title: Schema.optional(Schema.String),
    text: Schema.String,
    score: Schema.optional(Schema.Number)
  }))
}).pipe(
  Schema.filter((r) => r.question_id !== undefined || r.query !== undefined || "a record needs question_id or query")
)

export interface PrecomputedRetrieverOptions {
  readonly file: string
  /** `Passage.source`. Default: the file name. */
  readonly name?: string
  /** A question with no list: `fail` (default, parity runs must not silently drift) or return `empty`. */
  readonly onMissing?: "fail" | "empty"
}

const toCandidates = (passages: typeof PrecomputedRecord.Type["passages"]): Array<Candidate> =>
  passages.map((p, i) => {
    const title = p.title ?? ""
    return {
      id: p.id === undefined ? passageId(title, p.text) : String(p.id),
      title,
      text: p.text,
      score: p.score ?? 1 / (i + 1)
    }
  })

const load = (file: string) =>
  Effect.gen(function*() {
    yield* checkCorpusFile(file, "json")
    const byQuestion = new Map<string, Array<Candidate>>()
    const byQuery = new Map<string, Array<Candidate>>()
    const decode = Schema.decodeUnknownEither(Schema.parseJson(PrecomputedRecord))
    yield* readLineBatches(file, { offset: 0, line: 0 }, 1000).pipe(
      Stream.runForEach((batch) =>
        Effect.forEach(batch.lines, ({ number, text }) => {
          if (text.trim().length === 0) return Effect.void
          const record = decode(text)
          if (Either.isLeft(record)) {
            const message = firstDecodeIssue(record.left, "record")
            return Effect.fail(
              new RetrievalError({
                message: `${printable(file)}:${number}: invalid precomputed record: ${printable(message)}`
              })
            )
          }
          const candidates = toCandidates(record.right.passages)
          if (record.right.question_id !== undefined) byQuestion.set(String(record.right.question_id), candidates)
          if (record.right.query !== undefined) byQuery.set(record.right.query.trim(), candidates)
          return Effect.void
        }, { discard: true })
      )
    )
    return { byQuestion, byQuery }
  }).pipe(
    Effect.catchTags({
      CorpusFileNotFound: (e) =>
        Effect.fail(new RetrievalError({ message: `precomputed retrieval file not found: ${printable(e.file)}` })),
      InvalidCorpusFile: (e) => Effect.fail(new RetrievalError({ message: `precomputed retrieval: ${e.message}` }))
    })
  )

/** Loads the whole file (once), then answers from memory. */
export const make = (options: PrecomputedRetrieverOptions): Effect.Effect<RetrieverService, RetrievalError> =>
  Effect.gen(function*() {
    const { byQuestion, byQuery } = yield* load(options.file)
    return yield* retrievalPipeline({
      source: options.name ?? Path.basename(options.file),
      recall: (query, limit, request) => {
        const list = byQuestion.get(request.context.questionId) ?? byQuery.get(query)
        if (list !== undefined) return Effect.succeed(list.slice(0, limit))
        if (options.onMissing === "empty") return Effect.succeed([])
        return Effect.fail(
          new RetrievalError({
            message: `no precomputed retrieval for question "${request.context.questionId}" or query "${
              query.slice(0, 80)
            }" in ${options.file}`
          })
        )
      }
    })
  })

export const layer = (options: PrecomputedRetrieverOptions): Layer.Layer<Retriever, RetrievalError> =>
  Layer.effect(Retriever, make(options))
