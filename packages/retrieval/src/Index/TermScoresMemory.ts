/** How much the open collections of one process may keep between searches (see `TermScores`). */
export interface TermScoresLimits {
  /** Phrase scores kept in all, over every open collection (a rowid and a score each, 12 bytes). */
  readonly budget: number
  /** A phrase matching more passages than this is not kept: a search with it takes FTS5's own query. */
  readonly maxPostings: number
  /** Passages (id, title, text) kept for result lists, over every open collection. */
  readonly documents: number
  /** A passage rowid above this has no slot in a collection's accumulator: the search takes FTS5's own query. */
  readonly maxRowid: number
}

/**
 * For the whole process, however many collections a server has open: ≈ 12 MB of scores (a 200-question HotpotQA run
 * keeps 86,022), ≈ 5 MB of passages.
 */
export const defaultTermScoresLimits: TermScoresLimits = {
  budget: 1_000_000,
  maxPostings: 200_000,
  documents: 5_000,
  maxRowid: 4_194_304
}

/**
 * A search's scratch arrays, indexed by rowid: each row's running sum (`total`) and whether it was touched yet
 * (`marks`); `touched` lists the rows touched, in the order first touched (at most one slot per rowid).
 */
export interface Accumulator {
  readonly total: Float64Array
  readonly marks: Uint8Array
  readonly touched: Int32Array
}

/** One phrase's scores: matching rowids and each row's BM25 of the phrase alone (higher is better). */
export interface KeptPhrase {
  readonly rowids: Int32Array
  readonly scores: Float64Array
  readonly maxRowid: number
  /** The tick of the search that used it last (the least recently used go first when over budget). */
  used: number
}

/** A passage of a result list. */
export interface KeptDocument {
  readonly id: string
  readonly title: string
  readonly text: string
  used: number
}

/** What one open collection keeps: phrase scores by column weights and phrase, passages by rowid. */
export interface KeptEntries {
  readonly phrases: Map<string, KeptPhrase>
  readonly documents: Map<number, KeptDocument>
}

/**
 * The entries every open collection of a process keeps, held to one budget: a collection's `TermScores` keeps what it
 * reads through here, and when the total is over a limit the least recently used entries go first (to three quarters
 * of the limit), whichever collection holds them — so a server with many collections open holds what one would.
 */
export interface TermScoresMemory {
  readonly limits: TermScoresLimits
  /** A new search's tick of the one clock all collections share. */
  readonly tick: () => number
  /** Entries for a newly opened collection. */
  readonly open: () => KeptEntries
  /** Lets a closed collection's entries go. */
  readonly close: (entries: KeptEntries) => void
  /** Everything a collection kept, dropped (its file changed). */
  readonly clear: (entries: KeptEntries) => void
  readonly keepPhrase: (entries: KeptEntries, key: string, phrase: KeptPhrase) => void
  readonly keepDocument: (entries: KeptEntries, rowid: number, document: KeptDocument) => void
  /** Drops the least recently used entries while over a limit. */
  readonly trim: () => void
  /**
   * Each rowid's running sum, whether a search has touched it and the list of rows touched, for rowids up to
   * `maxRowid` (at most `limits.maxRowid`; 13 bytes a rowid): one set of arrays for the process, since a search runs
   * start to end synchronously and leaves every mark it set cleared; sized to the highest rowid any open collection's
   * search has needed.
   */
  readonly accumulator: (maxRowid: number) => Accumulator
  /** What is kept now, over every open collection. */
  readonly held: () => { readonly scores: number; readonly documents: number; readonly collections: number }
}

/**
 * Drops the least recently used values of `maps` until `held` is at most three quarters of `bound` (nothing when it
 * is within `bound`); answers what is held then.
 */
const dropOldest = <K, V extends { readonly used: number }>(
  maps: ReadonlyArray<Map<K, V>>,
  held: number,
  bound: number,
  sizeOf: (value: V) => number
): number => {
  if (held <= bound) return held
  const oldestFirst: Array<readonly [Map<K, V>, K, V]> = []
  for (const map of maps) for (const [key, value] of map) oldestFirst.push([map, key, value])
  oldestFirst.sort(([, , a], [, , b]) => a.used - b.used)
  let left = held
  for (const [map, key, value] of oldestFirst) {
    if (left <= bound * 0.75) break
    map.delete(key)
    left -= sizeOf(value)
  }
  return left
}

const phraseSize = (phrase: KeptPhrase) => phrase.rowids.length
const oneDocument = () => 1

/** One process's memory for term scores (`Collections` makes one and shares it with every collection it opens). */
export const makeTermScoresMemory = (limits: TermScoresLimits = defaultTermScoresLimits): TermScoresMemory => {
  const open = new Set<KeptEntries>()
  let clock = 0
  let scores = 0
  let documents = 0
  let accumulator: Accumulator = { total: new Float64Array(0), marks: new Uint8Array(0), touched: new Int32Array(0) }
  const clear = (entries: KeptEntries) => {
    for (const phrase of entries.phrases.values()) scores -= phraseSize(phrase)
    documents -= entries.documents.size
    entries.phrases.clear()
    entries.documents.clear()
  }
  return {
    limits,
    tick: () => ++clock,
    open: () => {
      const entries: KeptEntries = { phrases: new Map(), documents: new Map() }
      open.add(entries)
      return entries
    },
    close: (entries) => {
      clear(entries)
      open.delete(entries)
    },
    clear,
    keepPhrase: (entries, key, phrase) => {
      const before = entries.phrases.get(key)
      if (before !== undefined) scores -= phraseSize(before)
      entries.phrases.set(key, phrase)
      scores += phraseSize(phrase)
    },
    keepDocument: (entries, rowid, document) => {
      if (!entries.documents.has(rowid)) documents++
      entries.documents.set(rowid, document)
    },
    trim: () => {
      const all = [...open]
      scores = dropOldest(all.map((entries) => entries.phrases), scores, limits.budget, phraseSize)
      documents = dropOldest(all.map((entries) => entries.documents), documents, limits.documents, oneDocument)
    },
    accumulator: (maxRowid) => {
      if (maxRowid >= accumulator.total.length) {
        const size = Math.min(limits.maxRowid + 1, Math.max(maxRowid + 1, accumulator.total.length * 2, 4096))
        accumulator = { total: new Float64Array(size), marks: new Uint8Array(size), touched: new Int32Array(size) }
      }
      return accumulator
    },
    held: () => ({ scores, documents, collections: open.size })
  }
}
