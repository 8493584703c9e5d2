import type { SqlClient } from "@effect/sql"
import { Chunk, Clock, Effect, Option, Scope } from "effect"
import { annFileOf } from "../Collections/CollectionFiles.js"
import type { CorpusDocument } from "../Domain/CorpusDocument.js"
import type { IndexError } from "../Domain/Errors.js"
import type { CollectionSettings } from "../Domain/Ingest.js"
import { type CollectionVectors, makeCollectionVectors } from "../Vectors/CollectionVectors.js"
import { analyzeBatch, type AnalyzedPassage } from "./AnalyzedBatch.js"
import { makeContentFingerprint } from "./ContentFingerprint.js"
import { type FileProgress, fileProgressOf, progressRowOf } from "./FileProgress.js"
import { makeFtsQueries, replaceChunk, type StoredRow } from "./FtsQueries.js"
import type { ScoredDocument } from "./FtsQueries.js"
import { indexFailure } from "./IndexFailure.js"
import { MetaKey } from "./IndexSchema.js"
import { openIngestFastPath } from "./IngestFastPath.js"
import type { MatchQuery } from "./MatchQuery.js"
import { type ColumnWeightList, openTermScores, type TermScores } from "./TermScores.js"
import type { TermScoresMemory } from "./TermScoresMemory.js"
import { makeWriteGuard } from "./WriteGuard.js"

export type { ScoredDocument } from "./FtsQueries.js"

/** BM25 column weights. Bigram columns use the word-column weight times `cjk`. */
export interface ColumnWeights {
  readonly title: number
  readonly text: number
  readonly cjk: number
}

/** The BM25 index of one open collection file. Every failure is an `IndexError` naming the file. */
export interface FtsIndex {
  readonly file: string
  readonly settings: CollectionSettings
  /**
   * Inserts passages in one transaction, with the file's resume point when given. Passages whose id exists are
   * skipped or replaced (a replaced passage counts as added). Nothing of the batch is kept if any statement fails.
   */
  readonly addBatch: (
    documents: ReadonlyArray<CorpusDocument>,
    onDuplicate: "skip" | "replace",
    progress?: FileProgress
  ) => Effect.Effect<{ readonly added: number; readonly skipped: number }, IndexError>
  /** Deletes passages by id (from the documents and the FTS index); returns how many existed. */
  readonly delete: (ids: ReadonlyArray<string>) => Effect.Effect<number, IndexError>
  /**
   * The best `limit` passages for a query (see `matchQuery`), by weighted BM25: added up from the phrases' kept scores
   * (`TermScores`) when it can, else FTS5's query; the same passages, order and scores either way.
   */
  readonly search: (
    query: MatchQuery,
    limit: number,
    weights: ColumnWeights
  ) => Effect.Effect<ReadonlyArray<ScoredDocument>, IndexError>
  /** Stored passages by id, in the order asked (unknown ids are left out). */
  readonly get: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<typeof StoredRow.Type>, IndexError>
  readonly progressOf: (file: string) => Effect.Effect<Option.Option<FileProgress>, IndexError>
  readonly saveProgress: (progress: FileProgress) => Effect.Effect<void, IndexError>
  readonly allProgress: Effect.Effect<ReadonlyArray<FileProgress>, IndexError>
  readonly count: Effect.Effect<number, IndexError>
  /**
   * A hash of the collection's content: every passage's id, title and text, in id order. Two files with the same
   * passages have the same fingerprint however they were built; runs record it, and workers compare theirs. Computed
   * in one read transaction (a consistent snapshot) the first time and kept in `meta` (`content_fingerprint`) until a
   * write changes the passages, so a run's start does not read the whole collection again (≈ 3.4 s for 1M synthetic
   * passages, benchmarks/retrieval: over a minute for a Wikipedia-sized one).
   */
  readonly fingerprint: Effect.Effect<string, IndexError>
  readonly meta: Effect.Effect<Readonly<Record<string, string>>, IndexError>
  /** Records the build time; with `optimize`, merges the FTS5 segments into one (faster queries, slower build). */
  readonly finish: (optimize: boolean) => Effect.Effect<void, IndexError>
  /** The passages' vectors and their ANN file (dense retrieval). */
  readonly vectors: CollectionVectors
}

/**
 * Rows per multi-row statement (replacing passages, deleting, reading by id): 200 rows × 5 columns stay far below
 * SQLite's 32766 bound parameters, and one statement per 200 rows keeps the per-statement cost of `@effect/sql` low.
 */
const rowsPerStatement = 200

const chunks = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> =>
  Chunk.toArray(Chunk.chunksOf(Chunk.unsafeFromArray(items), rowsPerStatement)).map(Chunk.toReadonlyArray)

const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/**
 * The index over an open collection client (see `CollectionDatabase.open`), for the life of the scope; its searches
 * keep phrase scores in `memory` (the process's, `TermScoresMemory`).
 */
export const makeFtsIndex = (
  sql: SqlClient.SqlClient,
  file: string,
  settings: CollectionSettings,
  memory: TermScoresMemory
): Effect.Effect<FtsIndex, never, Scope.Scope> =>
  Effect.gen(function*() {
    const q = makeFtsQueries(sql)
    const scope = yield* Effect.scope
    const fastPath = yield* Effect.cached(Scope.extend(openIngestFastPath(file), scope))
    const openedOnce = yield* Effect.cached(Scope.extend(openTermScores(file, memory), scope))
    // once opened, a plain read: going through the cached effect at every search cost ≈ 15 run-loop steps
    let opened: TermScores | undefined
    const termScores = Effect.suspend(() =>
      opened !== undefined ? Effect.succeed(opened) : Effect.tap(openedOnce, (scores) => {
        opened = scores
      })
    )
    const read = <A, E>(operation: string, effect: Effect.Effect<A, E>) =>
      Effect.mapError(effect, indexFailure(file, operation))

    const write = yield* makeWriteGuard(file, q.quickCheck(undefined))

    const saveProgress = (p: FileProgress) => Effect.flatMap(nowIso, (at) => q.saveProgress(progressRowOf(p, at)))

    const replaceBatch = (analyzed: ReadonlyArray<AnalyzedPassage>, progress: FileProgress | undefined) =>
      sql.withTransaction(Effect.gen(function*() {
        let inserted = 0
        for (const chunk of chunks(analyzed)) inserted += yield* replaceChunk(q, chunk)
        if (inserted !== 0) yield* q.bumpCount(inserted)
        // a replaced passage changes the content without changing the count
        if (analyzed.length !== 0) yield* q.dropFingerprint(undefined)
        if (progress !== undefined) yield* saveProgress(progress)
      }))
    const insertBatch = (analyzed: ReadonlyArray<AnalyzedPassage>, progress: FileProgress | undefined) =>
      Effect.gen(function*() {
        const fast = yield* fastPath
        const row = progress === undefined ? undefined : progressRowOf(progress, yield* nowIso)
        return (yield* fast.insert(analyzed, row)).inserted
      })

    const fingerprint = makeContentFingerprint(sql, q, file)

    return {
      file,
      settings,
      vectors: makeCollectionVectors(sql, file, annFileOf(file)),
      addBatch: (documents, onDuplicate, progress) =>
        // tokenising is the expensive part: done before the transaction, which then only holds the connection for SQL
        Effect.flatMap(Effect.sync(() => analyzeBatch(documents, onDuplicate)), (analyzed) => {
          const added: Effect.Effect<number, unknown> = onDuplicate === "replace"
            ? Effect.as(replaceBatch(analyzed, progress), documents.length)
            : insertBatch(analyzed, progress)
          return write("adding passages", Effect.map(added, (n) => ({ added: n, skipped: documents.length - n })))
        }),
      delete: (ids) =>
        write(
          "deleting passages",
          sql.withTransaction(Effect.gen(function*() {
            let deleted = 0
            for (const chunk of chunks(Array.from(new Set(ids)))) {
              const rowids = (yield* q.rowidsOf(chunk)).map((r) => r.rowid)
              if (rowids.length === 0) continue
              yield* q.deleteFts(rowids)
              yield* q.dropVectors(rowids)
              yield* q.deleteDocuments(rowids)
              deleted += rowids.length
            }
            if (deleted !== 0) {
              yield* q.bumpCount(-deleted)
              yield* q.dropFingerprint(undefined)
            }
            return deleted
          }))
        ),
      search: (query, limit, weights) => {
        const columns: ColumnWeightList = [
          weights.title,
          weights.text,
          weights.title * weights.cjk,
          weights.text * weights.cjk
        ]
        return read(
          "searching",
          Effect.flatMap(termScores, (scores) => {
            const found = scores.search(query, limit, columns)
            return found !== undefined
              ? Effect.succeed(found)
              : q.search({ match: query.expression, limit, weights: columns })
          })
        )
      },
      get: (ids) =>
        read(
          "reading passages",
          Effect.map(Effect.forEach(chunks(ids), q.getDocuments), (found) => {
            const byId = new Map(found.flat().map((d) => [d.id, d]))
            return ids.flatMap((id) => byId.get(id) ?? [])
          })
        ),
      progressOf: (path) =>
        read("reading the ingest progress", Effect.map(q.progressOf(path), Option.map(fileProgressOf))),
      saveProgress: (p) => write("saving the ingest progress", saveProgress(p)),
      allProgress: read(
        "reading the ingest progress",
        Effect.map(q.allProgress(undefined), (rows) => rows.map(fileProgressOf))
      ),
      count: read(
        "counting passages",
        Effect.map(
          q.metaValue(MetaKey.documentCount),
          Option.match({ onNone: () => 0, onSome: (r) => Number(r.value) })
        )
      ),
      fingerprint,
      meta: read(
        "reading meta",
        Effect.map(q.meta(undefined), (rows) => Object.fromEntries(rows.map((r) => [r.key, r.value])))
      ),
      finish: (optimize) =>
        write(
          "finishing the build",
          Effect.gen(function*() {
            if (optimize) yield* q.optimize(undefined)
            yield* q.putMeta({ key: MetaKey.builtAt, value: yield* nowIso })
            // computed now (when the passages changed) rather than at the next run's start
            yield* fingerprint
          })
        )
    }
  })
