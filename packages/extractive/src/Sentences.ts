import { splitSentences, tokenize } from "@deepnote-rag/text"
import { type Idf, mass } from "./Idf.js"

/** What the engine needs of a passage (core's `Passage` fits; so does `{ title: "", text }`). */
export interface PassageLike {
  readonly title: string
  readonly text: string
}

/** One sentence as it appears (or would appear) in a note, with its terms. */
export interface Unit {
  /** As written in the note: the verbatim sentence, prefixed with `Title: ` when it lacks its passage's title. */
  readonly text: string
  /** Normalised form, for duplicate detection. */
  readonly key: string
  readonly terms: ReadonlySet<string>
  /** Reading order: passage by passage, sentence by sentence (or line order in a note). */
  readonly order: number
}

/** The terms of a text, the same way everywhere: lower-cased words without stop words; Chinese in jieba search mode. */
export const termsOf = (text: string): Array<string> => tokenize(text, { search: true })

/** Case, spacing and punctuation do not make two sentences different. */
export const normaliseKey = (text: string): string =>
  text.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")

/** A passage title without its disambiguation: "Kiss and Tell (1945 film)" → "Kiss and Tell". */
export const titleHead = (title: string): string => title.replace(/\s*[(（][^)）]*[)）]\s*$/u, "").trim()

/** The `Title: ` prefix of a note line, if it has one. */
export const titlePrefix = (text: string): string => /^[^:：\n]{1,60}: /u.exec(text)?.[0] ?? ""

const unit = (text: string, order: number): Unit => ({
  text,
  key: normaliseKey(text),
  terms: new Set(termsOf(text)),
  order
})

/** The sentences of passages as note lines; duplicates (same key) are kept once. */
export const passageUnits = (passages: ReadonlyArray<PassageLike>): Array<Unit> => {
  const units: Array<Unit> = []
  const seen = new Set<string>()
  for (const passage of passages) {
    const head = titleHead(passage.title)
    const headKey = normaliseKey(head)
    for (const sentence of splitSentences(passage.text)) {
      const text = headKey.length > 0 && !normaliseKey(sentence).includes(headKey) ? `${head}: ${sentence}` : sentence
      const u = unit(text, units.length)
      if (u.key.length === 0 || seen.has(u.key)) continue
      seen.add(u.key)
      units.push(u)
    }
  }
  return units
}

/** The sentences of a note: one per line as this engine writes them, else as `splitSentences` finds them. */
export const noteUnits = (note: string): Array<Unit> =>
  note
    .split(/\r?\n/u)
    .flatMap((line) => splitSentences(line))
    .map((text, order) => unit(text, order))
    .filter((u) => u.key.length > 0)

/** Whether a unit repeats a sentence of a note (also inside a note whose lines were merged). */
export const repeats = (u: Unit, keys: ReadonlySet<string>, noteKey: string): boolean =>
  keys.has(u.key) || noteKey.includes(u.key)

/** What a sentence is scored against: the question's terms and the bridge terms (note entities outside it). */
export interface Target {
  readonly question: ReadonlySet<string>
  readonly bridge: ReadonlySet<string>
  readonly bridgeWeight: number
}

/** The share of a set of terms' IDF mass that a sentence holds (0 when the terms weigh nothing). */
export const share = (u: Unit, terms: ReadonlySet<string>, idf: Idf): number => {
  let total = 0
  let held = 0
  for (const term of terms) {
    const w = idf(term)
    total += w
    if (u.terms.has(term)) held += w
  }
  return total === 0 ? 0 : held / total
}

/**
 * How much of the question a sentence covers: the share of the question's IDF mass it holds (1 = all of it), plus
 * up to `bridgeWeight` for the bridge terms it holds (full when they weigh a third of the question's mass).
 */
export const relevance = (u: Unit, target: Target, idf: Idf): number => {
  const total = mass(target.question, idf)
  if (total === 0) return 0
  const score = share(u, target.question, idf)
  let bridge = 0
  for (const term of target.bridge) {
    if (u.terms.has(term)) bridge += idf(term)
  }
  if (bridge === 0 || target.bridgeWeight === 0) return score
  // Bridge terms worth a third of the question's mass make a full bridge match, worth `bridgeWeight` at most.
  return score + target.bridgeWeight * Math.min(1, bridge / (total / 3))
}

/** Units scored against a target, best first (ties keep reading order). */
export const rank = (units: ReadonlyArray<Unit>, target: Target, idf: Idf) =>
  units
    .map((u) => ({ unit: u, score: relevance(u, target, idf) }))
    .sort((a, b) => b.score - a.score || a.unit.order - b.unit.order)
