import { bridgeOf, isLinked, languageOf, twoHop } from "./Bridge.js"
import { makeIdf } from "./Idf.js"
import { type ExtractiveOptions, type ResolvedOptions, resolveOptions } from "./Options.js"
import {
  normaliseKey,
  noteUnits,
  type PassageLike,
  passageUnits,
  rank,
  repeats,
  type Target,
  type Unit
} from "./Sentences.js"

interface Scored {
  readonly unit: Unit
  readonly score: number
}

/** Best-scoring first, within the sentence and character budgets (the top sentence always fits). */
const withinBudget = (ranked: ReadonlyArray<Scored>, options: ResolvedOptions): Array<Scored> => {
  const kept: Array<Scored> = []
  let chars = 0
  for (const s of ranked) {
    if (kept.length >= options.maxSentences) break
    if (kept.length > 0 && chars + s.unit.text.length > options.maxChars) continue
    kept.push(s)
    chars += s.unit.text.length + 1
  }
  return kept
}

/** A note is its sentences one per line, verbatim. */
const render = (units: ReadonlyArray<Unit>): string => units.map((u) => u.text).join("\n")

const byOrder = (a: Scored, b: Scored) => a.unit.order - b.unit.order

/**
 * Note initialisation: the passage sentences that best cover the question, kept verbatim.
 * Sentences are ranked in two hops (`twoHop`): question terms first, then question + bridge terms, so the
 * second hop's sentences enter too.
 */
export const writeInitialNote = (
  question: string,
  passages: ReadonlyArray<PassageLike>,
  options: ExtractiveOptions = {}
): string => {
  const opts = resolveOptions(options)
  const language = languageOf(question, options.language)
  const units = passageUnits(passages)
  const idf = makeIdf(units.map((u) => u.terms))
  const { anchors, ranked: all, target } = twoHop(units, question, language, idf, opts.bridgeWeight)
  const links = { anchors, bridge: target.bridge, question: target.question }
  const ranked = all.filter((s) => s.score >= opts.minRelevance && isLinked(s.unit, links, idf, opts.unlinkedCoverage))
  return render(withinBudget(ranked, opts).sort(byOrder).map((s) => s.unit))
}

/**
 * Knowledge accumulation: the best note's sentences plus the new passages' relevant sentences that the note does
 * not already hold (normalised comparison). Bridge terms come from the best note's two most relevant sentences. Over budget, the lowest-scoring
 * sentences (old or new) are dropped. Order: the note's sentences as they were, then the new ones in reading order.
 */
export const updateNote = (
  question: string,
  bestNote: string,
  passages: ReadonlyArray<PassageLike>,
  options: ExtractiveOptions = {}
): string => {
  const opts = resolveOptions(options)
  const language = languageOf(question, options.language)
  const old = noteUnits(bestNote)
  const keys = new Set(old.map((u) => u.key))
  const noteKey = normaliseKey(bestNote)
  const fresh = passageUnits(passages)
    .filter((u) => !repeats(u, keys, noteKey))
    .map((u) => ({ ...u, order: old.length + u.order }))
  const idf = makeIdf([...old, ...fresh].map((u) => u.terms))
  const { anchors, bridge, terms } = bridgeOf(old, question, language, idf)
  const target: Target = { question: terms, bridge, bridgeWeight: opts.bridgeWeight }
  const links = { anchors, bridge, question: terms }
  const freshKeys = new Set(fresh.map((u) => u.key))
  const candidates = rank([...old, ...fresh], target, idf).filter(
    (s) =>
      !freshKeys.has(s.unit.key) ||
      (s.score >= opts.minRelevance && isLinked(s.unit, links, idf, opts.unlinkedCoverage))
  )
  return render(withinBudget(candidates, opts).sort(byOrder).map((s) => s.unit))
}
