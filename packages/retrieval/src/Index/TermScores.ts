import Database from "better-sqlite3"
import { Effect, type Scope } from "effect"
import { bestRows } from "./BestRows.js"
import type { ScoredDocument } from "./FtsQueries.js"
import type { MatchQuery } from "./MatchQuery.js"

/** BM25 weights of the `fts` columns: title, body, title bigrams, body bigrams. */
export type ColumnWeightList = readonly [number, number, number, number]

/** How much a collection's `TermScores` may hold. */
export interface TermScoresLimits {
  /** Phrase scores kept in all (a rowid and a score each, 12 bytes). */
  readonly budget: number
  /** A phrase matching more passages than this is not kept: a search with it takes FTS5's own query. */
  readonly maxPostings: number
  /** Passages (id, title, text) kept for result lists. */
  readonly documents: number
  /** A passage rowid above this has no slot in the accumulator: the search takes FTS5's own query. */
  readonly maxRowid: number
}

/**
 * Per open collection, so a server with many collections open stays bounded: ≈ 12 MB of scores (a 200-question
 * HotpotQA run keeps 86,022), ≈ 5 MB of passages.
 */
export const defaultTermScoresLimits: TermScoresLimits = {
  budget: 1_000_000,
  maxPostings: 200_000,
  documents: 5_000,
  maxRowid: 4_194_304
}

/**
 * BM25 searches of one collection from each phrase's scores, kept between searches. FTS5's `bm25()` of an OR of
 * phrases is, for every matching row, the sum over the phrases in their order of that phrase's own BM25 (its IDF over
 * the whole table, its weighted frequency in the row, the row's length): the sum FTS5 computes in C, computed here in
 * the same order on the same doubles, so the scores are the same bits. A phrase's scores are read once
 * (`{title body} : "term"` alone, every matching row) and kept; a search adds up its phrases' lists and sorts the
 * rows as FTS5's query does (score, then rowid). The run's searches repeat phrases (the question's terms at every step,
 * each planned query alone and with the question), so most are added up from memory instead of scored again.
 *
 * Everything is read on a read-only connection of its own, each search in one read transaction: `PRAGMA
 * data_version` there changes when any other connection (this process's or another's) has committed, and then what
 * was kept is dropped before the search reads anything. `search` answers undefined when it cannot answer (a phrase
 * matching more than `maxPostings` rows, a rowid above `maxRowid`, any SQLite error): the caller runs FTS5's query.
 */
export interface TermScores {
  readonly search: (
    query: MatchQuery,
    limit: number,
    weights: ColumnWeightList
  ) => ReadonlyArray<ScoredDocument> | undefined
}

/** One phrase's scores: matching rowids and each row's BM25 of the phrase alone (higher is better). */
interface Postings {
  readonly rowids: Int32Array
  readonly scores: Float64Array
  readonly maxRowid: number
  /** The search that used it last (the least recently used go first when over budget). */
  used: number
}

interface StoredDocument {
  readonly id: string
  readonly title: string
  readonly text: string
  used: number
}

type PhraseRow = [rowid: number, bm25: number]
type DocumentRow = [rowid: number, id: unknown, title: unknown, text: unknown]

/** Drops the least recently used entries of `map` until `size(map)` is at most three quarters of `bound`. */
const evict = <K, V extends { readonly used: number }>(
  map: Map<K, V>,
  bound: number,
  size: () => number,
  drop: (key: K, value: V) => void
) => {
  if (size() <= bound) return
  const oldestFirst = [...map].sort(([, a], [, b]) => a.used - b.used)
  for (const [key, value] of oldestFirst) {
    if (size() <= bound * 0.75) break
    drop(key, value)
  }
}

const make = (file: string, limits: TermScoresLimits) => {
  const db = new Database(file, { fileMustExist: true, readonly: true })
  db.pragma("cache_size = -32768")
  const dataVersion = db.prepare("PRAGMA data_version").pluck()
  const phraseRows = db.prepare("SELECT rowid, bm25(fts, ?, ?, ?, ?) FROM fts WHERE fts MATCH ? LIMIT ?").raw()
  const documentRows = db.prepare(
    "SELECT rowid, id, title, text FROM documents WHERE rowid IN (SELECT value FROM json_each(?))"
  ).raw()

  let version: unknown = undefined
  let clock = 0
  /** Phrase scores by column weights and phrase (`keyOf`). */
  const postings = new Map<string, Postings>()
  const keyOf = (weights: string, phrase: string) => `${weights}\n${phrase}`
  let held = 0
  const documents = new Map<number, StoredDocument>()
  let sums = new Float64Array(0)
  let seen = new Uint8Array(0)

  const read = (phrase: string, weights: ColumnWeightList): Postings | undefined => {
    const rows = phraseRows.all(...weights, phrase, limits.maxPostings + 1) as Array<PhraseRow>
    if (rows.length > limits.maxPostings) return undefined
    const rowids = new Int32Array(rows.length)
    const scores = new Float64Array(rows.length)
    let maxRowid = 0
    rows.forEach(([rowid, bm25], i) => {
      rowids[i] = rowid
      scores[i] = -bm25 // FTS5's bm25 is lower-is-better: the negation is exact
      if (rowid > maxRowid) maxRowid = rowid
    })
    held += rows.length
    return { rowids, scores, maxRowid, used: clock }
  }

  const dropOverBudget = () =>
    evict(postings, limits.budget, () => held, (key, list) => {
      postings.delete(key)
      held -= list.rowids.length
    })

  /** Room in the accumulator for rowids up to `rowid`. */
  const reserve = (rowid: number) => {
    if (rowid < sums.length) return
    const size = Math.min(limits.maxRowid + 1, Math.max(rowid + 1, sums.length * 2, 4096))
    sums = new Float64Array(size)
    seen = new Uint8Array(size)
  }

  const documentsOf = (rowids: ReadonlyArray<number>) => {
    const missing = rowids.filter((rowid) => !documents.has(rowid))
    if (missing.length > 0) {
      for (const [rowid, id, title, text] of documentRows.all(JSON.stringify(missing)) as Array<DocumentRow>) {
        // a value another program stored as bytes is left out: the search goes to FTS5's query, which reports it
        if (typeof id === "string" && typeof title === "string" && typeof text === "string") {
          documents.set(rowid, { id, title, text, used: clock })
        }
      }
    }
    const found = rowids.map((rowid) => {
      const document = documents.get(rowid)
      if (document !== undefined) document.used = clock
      return document
    })
    evict(documents, limits.documents, () => documents.size, (rowid) => documents.delete(rowid))
    return found
  }

  const searchInSnapshot = db.transaction(
    (query: MatchQuery, limit: number, weights: ColumnWeightList): ReadonlyArray<ScoredDocument> | undefined => {
      const now = dataVersion.get()
      if (now !== version) {
        postings.clear()
        documents.clear()
        held = 0
        version = now
      }
      clock++
      const weightsKey = weights.join(",")
      const lists: Array<Postings> = []
      for (const phrase of query.phrases) {
        const key = keyOf(weightsKey, phrase)
        let list = postings.get(key)
        if (list === undefined) {
          list = read(phrase, weights)
          if (list === undefined) return undefined
          postings.set(key, list)
        }
        if (list.maxRowid > limits.maxRowid) return undefined
        list.used = clock
        lists.push(list)
      }
      dropOverBudget()
      // each row's sum in the phrases' order, as FTS5 adds them (a phrase a row lacks adds +0.0 there: no change)
      const touched: Array<number> = []
      for (const list of lists) reserve(list.maxRowid)
      const total = sums
      const marks = seen
      for (const { rowids, scores } of lists) {
        for (let i = 0; i < rowids.length; i++) {
          const rowid = rowids[i]!
          if (marks[rowid] === 0) {
            marks[rowid] = 1
            total[rowid] = scores[i]!
            touched.push(rowid)
          } else total[rowid] = total[rowid]! + scores[i]!
        }
      }
      for (const rowid of touched) marks[rowid] = 0
      // FTS5's `ORDER BY score LIMIT n` keeps rows of equal score in scan (rowid) order
      const top = bestRows(touched, total, limit)
      const stored = documentsOf(top)
      const found: Array<ScoredDocument> = []
      top.forEach((rowid, i) => {
        const document = stored[i]
        if (document !== undefined) {
          found.push({ id: document.id, title: document.title, text: document.text, score: total[rowid]! })
        }
      })
      return found.length === top.length ? found : undefined
    }
  )

  const scores: TermScores = {
    search: (query, limit, weights) => {
      // SQLite reads a negative LIMIT as no limit: such a search is FTS5's
      if (!Number.isSafeInteger(limit) || limit < 0) return undefined
      try {
        return searchInSnapshot(query, limit, weights)
      } catch {
        return undefined
      }
    }
  }
  return { db, scores }
}

/** Answers every search with undefined: FTS5's own query runs. */
const unavailable: TermScores = { search: () => undefined }

/**
 * The term scores of the collection file for the life of the scope, on a read-only connection of their own. A file
 * that cannot be opened that way (e.g. a read-only directory without the WAL's shared-memory file) gets none: every
 * search runs FTS5's query, which reports what is wrong.
 */
export const openTermScores = (
  file: string,
  limits: TermScoresLimits = defaultTermScoresLimits
): Effect.Effect<TermScores, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      try {
        return make(file, limits)
      } catch {
        return undefined
      }
    }),
    (opened) => Effect.sync(() => opened?.db.close())
  ).pipe(Effect.map((opened) => opened?.scores ?? unavailable))
