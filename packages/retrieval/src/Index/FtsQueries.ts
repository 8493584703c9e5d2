import { type SqlClient, SqlSchema } from "@effect/sql"
import { Effect, type ParseResult, Predicate, Schema } from "effect"
import { MetaKey } from "./IndexSchema.js"

/** A search hit: the stored passage and its BM25 score (higher is better). */
export interface ScoredDocument {
  readonly id: string
  readonly title: string
  readonly text: string
  readonly score: number
}

/** A row of `documents` as written. */
export const DocumentRow = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  text: Schema.String,
  metadata: Schema.NullOr(Schema.String),
  lang: Schema.String
})

/** A row of the contentless `fts` table: the tokenised columns of the passage with the same rowid. */
export const FtsRow = Schema.Struct({
  rowid: Schema.Number,
  title: Schema.String,
  body: Schema.String,
  title_cjk: Schema.String,
  body_cjk: Schema.String
})

const RowidRow = Schema.Struct({ rowid: Schema.Number, id: Schema.String })

export const StoredRow = Schema.Struct({ id: Schema.String, title: Schema.String, text: Schema.String })

export const ScoredRow = Schema.Struct({ ...StoredRow.fields, score: Schema.Number })

export const ProgressRow = Schema.Struct({
  file: Schema.String,
  size: Schema.Number,
  mtime_ms: Schema.Number,
  byte_offset: Schema.Number,
  line: Schema.Number,
  done: Schema.Number,
  updated_at: Schema.String
})

const MetaRow = Schema.Struct({ key: Schema.String, value: Schema.String })

/** A search: the MATCH expression, how many rows, and the weights of title, text, title bigrams and text bigrams. */
interface SearchRequest {
  readonly match: string
  readonly limit: number
  readonly weights: readonly [number, number, number, number]
}

const decodeScoredRows = Schema.decodeUnknown(Schema.Array(ScoredRow))

/** What `ScoredRow` checks, by hand (see `search`). */
const isScoredRow = (row: unknown): row is typeof ScoredRow.Type =>
  Predicate.isRecord(row) && typeof row.id === "string" && typeof row.title === "string" &&
  typeof row.text === "string" && typeof row.score === "number"

const Ids = Schema.Array(Schema.String)
const Rowids = Schema.Array(Schema.Number)

/** Every statement of a collection file, typed by its request and row schemas. */
export const makeFtsQueries = (sql: SqlClient.SqlClient) => ({
  /** Inserts new passages; ids already stored are left alone. Returns the rows inserted. */
  insertNew: SqlSchema.findAll({
    Request: Schema.Array(DocumentRow),
    Result: RowidRow,
    execute: (rows) => sql`INSERT INTO documents ${sql.insert(rows)} ON CONFLICT (id) DO NOTHING RETURNING rowid, id`
  }),
  /** Inserts or overwrites passages by id (the rowid of an overwritten passage stays). Returns every row written. */
  upsert: SqlSchema.findAll({
    Request: Schema.Array(DocumentRow),
    Result: RowidRow,
    execute: (rows) =>
      sql`INSERT INTO documents ${sql.insert(rows)} ON CONFLICT (id) DO UPDATE SET title = excluded.title,
        text = excluded.text, metadata = excluded.metadata, lang = excluded.lang RETURNING rowid, id`
  }),
  rowidsOf: SqlSchema.findAll({
    Request: Ids,
    Result: RowidRow,
    execute: (ids) => sql`SELECT rowid, id FROM documents WHERE id IN ${sql.in(ids)}`
  }),
  deleteDocuments: SqlSchema.void({
    Request: Rowids,
    execute: (rowids) => sql`DELETE FROM documents WHERE rowid IN ${sql.in(rowids)}`
  }),
  insertFts: SqlSchema.void({
    Request: Schema.Array(FtsRow),
    execute: (rows) => sql`INSERT INTO fts ${sql.insert(rows)}`
  }),
  deleteFts: SqlSchema.void({
    Request: Rowids,
    execute: (rowids) => sql`DELETE FROM fts WHERE rowid IN ${sql.in(rowids)}`
  }),
  /**
   * One page of passages in id order after `afterId`, each as `[id, title, text]` (the content fingerprint reads them
   * all this way). Plain value arrays, checked by the reader, not rows decoded by a schema: at 1M passages the schema
   * and the row objects were more than half of the fingerprint's time.
   */
  documentValuesAfter: (page: { readonly afterId: string; readonly limit: number }) =>
    sql`SELECT id, title, text FROM documents WHERE id > ${page.afterId} ORDER BY id LIMIT ${page.limit}`.values,
  getDocuments: SqlSchema.findAll({
    Request: Ids,
    Result: StoredRow,
    execute: (ids) => sql`SELECT id, title, text FROM documents WHERE id IN ${sql.in(ids)}`
  }),
  /**
   * The best `limit` passages of a MATCH expression by weighted BM25 (FTS5's bm25 is lower-is-better). The rows are
   * checked by `isScoredRow` and go through `ScoredRow` only when one fails (for its error): decoding the 50–65 rows of
   * every search with the schema was ≈ 7 % of a `deepnote run`'s allocation (2,518 searches for 200 questions of
   * benchmarks/cpu; its CPU per LLM call did not change measurably).
   */
  search: ({ limit, match, weights: [title, text, titleCjk, textCjk] }: SearchRequest) =>
    Effect.flatMap(
      sql`SELECT d.id AS id, d.title AS title, d.text AS text, -r.score AS score
        FROM (SELECT rowid, bm25(fts, ${title}, ${text}, ${titleCjk}, ${textCjk}) AS score
              FROM fts WHERE fts MATCH ${match} ORDER BY score LIMIT ${limit}) AS r
        JOIN documents AS d ON d.rowid = r.rowid
        ORDER BY r.score`,
      (rows): Effect.Effect<ReadonlyArray<typeof ScoredRow.Type>, ParseResult.ParseError> =>
        rows.every(isScoredRow) ? Effect.succeed(rows) : decodeScoredRows(rows)
    ),
  meta: SqlSchema.findAll({ Request: Schema.Void, Result: MetaRow, execute: () => sql`SELECT key, value FROM meta` }),
  metaValue: SqlSchema.findOne({
    Request: Schema.String,
    Result: MetaRow,
    execute: (key) => sql`SELECT key, value FROM meta WHERE key = ${key}`
  }),
  putMeta: SqlSchema.void({
    Request: MetaRow,
    execute: (row) => sql`INSERT OR REPLACE INTO meta ${sql.insert(row)}`
  }),
  bumpCount: SqlSchema.void({
    Request: Schema.Number,
    execute: (delta) =>
      sql`UPDATE meta SET value = CAST(value AS INTEGER) + ${delta} WHERE key = ${MetaKey.documentCount}`
  }),
  /** Forgets the stored content fingerprint: run by every write that changes the passages, in its transaction. */
  dropFingerprint: SqlSchema.void({
    Request: Schema.Void,
    execute: () => sql`DELETE FROM meta WHERE key = ${MetaKey.contentFingerprint}`
  }),
  progressOf: SqlSchema.findOne({
    Request: Schema.String,
    Result: ProgressRow,
    execute: (file) => sql`SELECT * FROM ingest_progress WHERE file = ${file}`
  }),
  allProgress: SqlSchema.findAll({
    Request: Schema.Void,
    Result: ProgressRow,
    execute: () => sql`SELECT * FROM ingest_progress ORDER BY file`
  }),
  saveProgress: SqlSchema.void({
    Request: ProgressRow,
    execute: (row) => sql`INSERT OR REPLACE INTO ingest_progress ${sql.insert(row)}`
  }),
  /**
   * Drops the vectors of passages deleted or replaced (a replaced text needs a new vector) and bumps
   * `vectors_version` when any went, so a stale ANN file is rebuilt rather than trusted.
   */
  dropVectors: (rowids: ReadonlyArray<number>) =>
    Effect.gen(function*() {
      const dropped = yield* sql`DELETE FROM vectors WHERE rowid IN ${sql.in(rowids)} RETURNING rowid`
      if (dropped.length > 0) {
        yield* sql`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ${MetaKey.vectorsVersion}`
      }
    }),
  optimize: SqlSchema.void({ Request: Schema.Void, execute: () => sql`INSERT INTO fts(fts) VALUES ('optimize')` }),
  /** `PRAGMA quick_check`: one row `ok`, or one row per problem found. */
  quickCheck: SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ quick_check: Schema.String }),
    execute: () => sql`PRAGMA quick_check`
  })
})

export type FtsQueries = ReturnType<typeof makeFtsQueries>

/** A passage ready to write: its `documents` row and its tokenised `fts` columns. */
export interface AnalyzedPassage {
  readonly document: typeof DocumentRow.Type
  readonly fts: Omit<typeof FtsRow.Type, "rowid">
}

/**
 * Writes a chunk of passages that may replace stored ones (inside the caller's transaction): their old FTS rows
 * out, the documents upserted (an overwritten passage keeps its rowid), the new FTS rows in. Returns how many were new.
 */
export const replaceChunk = (q: FtsQueries, chunk: ReadonlyArray<AnalyzedPassage>) =>
  Effect.gen(function*() {
    const documents = chunk.map((a) => a.document)
    const existing = yield* q.rowidsOf(documents.map((d) => d.id))
    if (existing.length > 0) {
      yield* q.deleteFts(existing.map((r) => r.rowid))
      yield* q.dropVectors(existing.map((r) => r.rowid))
    }
    const written = yield* q.upsert(documents)
    const rowids = new Map(written.map((r) => [r.id, r.rowid]))
    const fts = chunk.flatMap((a) => {
      const rowid = rowids.get(a.document.id)
      return rowid === undefined ? [] : [{ rowid, ...a.fts }]
    })
    if (fts.length > 0) yield* q.insertFts(fts)
    return written.length - existing.length
  })
