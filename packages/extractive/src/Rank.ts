import { makeIdf } from "./Idf.js"
import { normaliseKey, noteUnits, type PassageLike, passageUnits, termsOf } from "./Sentences.js"

/** The best and the worst candidate of a group, by index; the same index when none scores differently. */
export interface Ranked {
  readonly best: number
  readonly worst: number
}

/** Highest score first, the earliest candidate on ties; the worst is the lowest, the latest on ties. */
const pick = (scores: ReadonlyArray<number>): Ranked => {
  let best = 0
  let worst = 0
  for (let i = 1; i < scores.length; i++) {
    if (scores[i]! > scores[best]!) best = i
    if (scores[i]! <= scores[worst]!) worst = i
  }
  return scores[best] === scores[worst] ? { best, worst: best } : { best, worst }
}

/** Share of `terms`' IDF mass that `held` holds (0 when they weigh nothing). */
const idfShare = (terms: ReadonlySet<string>, held: ReadonlySet<string>, idf: (t: string) => number) => {
  let total = 0
  let have = 0
  for (const t of terms) {
    total += idf(t)
    if (held.has(t)) have += idf(t)
  }
  return total === 0 ? 0 : have / total
}

/**
 * The offline group judge for initial notes (DNAlign's T19 criteria, as rules): relevance is the share of the
 * question's IDF mass the note holds; completeness the share of the passages' question-relevant sentences it keeps;
 * accuracy the share of its sentences found verbatim in the passages; coherence loses for repeated sentences.
 */
export const rankNotes = (
  question: string,
  passages: ReadonlyArray<PassageLike>,
  candidates: ReadonlyArray<string>
): Ranked => {
  const source = passageUnits(passages)
  const idf = makeIdf([...source.map((u) => u.terms), ...candidates.map((c) => new Set(termsOf(c)))])
  const asked = new Set(termsOf(question))
  const relevant = source.filter((u) => [...u.terms].some((t) => asked.has(t)))
  const sourceKeys = source.map((u) => u.key)
  const scores = candidates.map((candidate) => {
    const units = noteUnits(candidate)
    if (units.length === 0) return 0
    const terms = new Set(units.flatMap((u) => [...u.terms]))
    const noteKey = normaliseKey(candidate)
    const relevance = idfShare(asked, terms, idf)
    const completeness = relevant.length === 0 ? 0 : relevant.filter((u) => noteKey.includes(u.key)).length /
      relevant.length
    const accuracy = units.filter((u) => sourceKeys.some((k) => k.includes(u.key))).length / units.length
    const repeated = units.length - new Set(units.map((u) => u.key)).size
    return 2 * relevance + completeness + accuracy - 0.5 * (repeated / units.length)
  })
  return pick(scores)
}

/**
 * The offline group judge for query sets (DNAlign's T20 criteria, as rules): relevance and specificity are the note's
 * terms a set brings that the question does not name (the bridge entities to look up), keywords the share of the
 * question's terms it carries; a query that repeats the question, an earlier query or a sibling counts against it, and
 * so do long queries (more than 8 terms).
 */
export const rankQueries = (
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  candidates: ReadonlyArray<ReadonlyArray<string>>
): Ranked => {
  const asked = new Set(termsOf(question))
  const noteTerms = new Set(termsOf(note))
  const known = new Set([normaliseKey(question), ...queryLog.map(normaliseKey)])
  const idf = makeIdf(candidates.flatMap((qs) => qs.map((q) => new Set(termsOf(q)))))
  const scores = candidates.map((queries) => {
    if (queries.length === 0) return 0
    const terms = new Set(queries.flatMap((q) => termsOf(q)))
    const bridge = [...terms].filter((t) => !asked.has(t) && noteTerms.has(t))
    const keys = queries.map(normaliseKey)
    const redundant = keys.filter((k, i) => known.has(k) || keys.indexOf(k) !== i).length
    const long = queries.filter((q) => termsOf(q).length > 8).length
    return Math.min(3, bridge.length) + idfShare(asked, terms, idf) - redundant - 0.25 * long
  })
  return pick(scores)
}
