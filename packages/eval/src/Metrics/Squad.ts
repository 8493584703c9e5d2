import { normalizeAnswer, type PunctuationSet } from "./Normalize.js"

/** The best score of a prediction over gold aliases (0 when there is no gold answer). */
export const maxOverGolds = (golds: ReadonlyArray<string>, score: (gold: string) => number): number =>
  golds.reduce((best, gold) => Math.max(best, score(gold)), 0)

/** 1 when the normalised prediction equals the normalised gold. */
export const exactMatch = (prediction: string, gold: string, set: PunctuationSet = "unicode"): number =>
  normalizeAnswer(prediction, set) === normalizeAnswer(gold, set) ? 1 : 0

/** F1 of two token lists (multiset overlap), SQuAD v1.1 style: 0 when nothing overlaps, including two empty lists. */
export const tokenListF1 = (prediction: ReadonlyArray<string>, gold: ReadonlyArray<string>): number => {
  const counts = new Map<string, number>()
  for (const t of gold) counts.set(t, (counts.get(t) ?? 0) + 1)
  let same = 0
  for (const t of prediction) {
    const n = counts.get(t) ?? 0
    if (n > 0) {
      same++
      counts.set(t, n - 1)
    }
  }
  if (same === 0) return 0
  const precision = same / prediction.length
  const recall = same / gold.length
  return (2 * precision * recall) / (precision + recall)
}

const tokens = (text: string, set: PunctuationSet) => {
  const normalized = normalizeAnswer(text, set)
  return normalized.length === 0 ? [] : normalized.split(" ")
}

/** Token F1 of the normalised prediction against the normalised gold (whitespace tokens). */
export const tokenF1 = (prediction: string, gold: string, set: PunctuationSet = "unicode"): number =>
  tokenListF1(tokens(prediction, set), tokens(gold, set))

/** EM, max over gold aliases. */
export const squadEm = (prediction: string, golds: ReadonlyArray<string>, set: PunctuationSet = "unicode"): number =>
  maxOverGolds(golds, (gold) => exactMatch(prediction, gold, set))

/** Token F1, max over gold aliases. */
export const squadF1 = (prediction: string, golds: ReadonlyArray<string>, set: PunctuationSet = "unicode"): number =>
  maxOverGolds(golds, (gold) => tokenF1(prediction, gold, set))
