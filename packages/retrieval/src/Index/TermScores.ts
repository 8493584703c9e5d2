import Database from "better-sqlite3"
import { Effect, type Scope } from "effect"
import { bestRows } from "./BestRows.js"
import type { ScoredDocument } from "./FtsQueries.js"
import type { MatchQuery } from "./MatchQuery.js"
import { type KeptDocument, type KeptPhrase, makeTermScoresMemory, type TermScoresMemory } from "./TermScoresMemory.js"

/** BM25 weights of the `fts` columns: title, body, title bigrams, body bigrams. */
export type ColumnWeightList = readonly [number, number, number, number]

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
 * was kept is dropped before the search reads anything. What is kept counts against the process's `TermScoresMemory`,
 * shared by every open collection. `search` answers undefined when it cannot answer (a phrase matching more than
 * `maxPostings` rows, a rowid above `maxRowid`, any SQLite error): the caller runs FTS5's query.
 */
export interface TermScores {
  readonly search: (
    query: MatchQuery,
    limit: number,
    weights: ColumnWeightList
  ) => ReadonlyArray<ScoredDocument> | undefined
}

type PhraseRow = [rowid: number, bm25: number]
type DocumentRow = [rowid: number, id: unknown, title: unknown, text: unknown]

const make = (file: string, memory: TermScoresMemory) => {
  const { limits } = memory
  const db = new Database(file, { fileMustExist: true, readonly: true })
  db.pragma("cache_size = -32768")
  const dataVersion = db.prepare("PRAGMA data_version").pluck()
  const phraseRows = db.prepare("SELECT rowid, bm25(fts, ?, ?, ?, ?) FROM fts WHERE fts MATCH ? LIMIT ?").raw()
  const documentRows = db.prepare(
    "SELECT rowid, id, title, text FROM documents WHERE rowid IN (SELECT value FROM json_each(?))"
  ).raw()

  let version: unknown = undefined
  let clock = 0
  /** Phrase scores by column weights and phrase (`keyOf`), passages by rowid. */
  const kept = memory.open()
  const keyOf = (weights: string, phrase: string) => `${weights}\n${phrase}`

  const read = (phrase: string, weights: ColumnWeightList): KeptPhrase | undefined => {
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
    return { rowids, scores, maxRowid, used: clock }
  }

  const documentsOf = (rowids: ReadonlyArray<number>) => {
    const missing = rowids.filter((rowid) => !kept.documents.has(rowid))
    if (missing.length > 0) {
      for (const [rowid, id, title, text] of documentRows.all(JSON.stringify(missing)) as Array<DocumentRow>) {
        // a value another program stored as bytes is left out: the search goes to FTS5's query, which reports it
        if (typeof id === "string" && typeof title === "string" && typeof text === "string") {
          memory.keepDocument(kept, rowid, { id, title, text, used: clock })
        }
      }
    }
    return rowids.map((rowid): KeptDocument | undefined => {
      const document = kept.documents.get(rowid)
      if (document !== undefined) document.used = clock
      return document
    })
  }

  const searchInSnapshot = db.transaction(
    (query: MatchQuery, limit: number, weights: ColumnWeightList): ReadonlyArray<ScoredDocument> | undefined => {
      const now = dataVersion.get()
      if (now !== version) {
        memory.clear(kept)
        version = now
      }
      clock = memory.tick()
      const weightsKey = weights.join(",")
      const lists: Array<KeptPhrase> = []
      let highest = 0
      for (const phrase of query.phrases) {
        const key = keyOf(weightsKey, phrase)
        let list = kept.phrases.get(key)
        if (list === undefined) {
          list = read(phrase, weights)
          if (list === undefined) return undefined
          memory.keepPhrase(kept, key, list)
        }
        if (list.maxRowid > limits.maxRowid) return undefined
        list.used = clock
        lists.push(list)
        if (list.maxRowid > highest) highest = list.maxRowid
      }
      // each row's sum in the phrases' order, as FTS5 adds them (a phrase a row lacks adds +0.0 there: no change)
      // the rows touched go to the process's scratch list (a growing array here was ≈ 5 % of a run's allocations)
      const { marks, total, touched } = memory.accumulator(highest)
      let count = 0
      for (const { rowids, scores } of lists) {
        for (let i = 0; i < rowids.length; i++) {
          const rowid = rowids[i]!
          if (marks[rowid] === 0) {
            marks[rowid] = 1
            total[rowid] = scores[i]!
            touched[count++] = rowid
          } else total[rowid] = total[rowid]! + scores[i]!
        }
      }
      for (let i = 0; i < count; i++) marks[touched[i]!] = 0
      // FTS5's `ORDER BY score LIMIT n` keeps rows of equal score in scan (rowid) order
      const top = bestRows(touched, total, limit, count)
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
      } finally {
        // whatever the search kept, answered or not
        memory.trim()
      }
    }
  }
  return { db, kept, scores }
}

/** Answers every search with undefined: FTS5's own query runs. */
const unavailable: TermScores = { search: () => undefined }

/**
 * The term scores of the collection file for the life of the scope, on a read-only connection of their own, kept in
 * `memory` (the process's, shared with its other open collections; a memory of its own when not given). A file that
 * cannot be opened that way (e.g. a read-only directory without the WAL's shared-memory file) gets none: every
 * search runs FTS5's query, which reports what is wrong. So does a memory that may keep no scores
 * (`DEEPNOTE_SEARCH_CACHE_SCORES=0`): no connection is opened and nothing is registered with it.
 */
export const openTermScores = (
  file: string,
  memory: TermScoresMemory = makeTermScoresMemory()
): Effect.Effect<TermScores, never, Scope.Scope> =>
  memory.limits.budget === 0 ? Effect.succeed(unavailable) : Effect.acquireRelease(
    Effect.sync(() => {
      try {
        return make(file, memory)
      } catch {
        return undefined
      }
    }),
    (opened) =>
      Effect.sync(() => {
        if (opened === undefined) return
        memory.close(opened.kept)
        opened.db.close()
      })
  ).pipe(Effect.map((opened) => opened?.scores ?? unavailable))
