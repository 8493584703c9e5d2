import type { GoldPassage, Passage, PipelineResult, Question } from "@deepnote-rag/core"

const compact = (s: string) => s.toLowerCase().replace(/\s+/gu, "")

/** The keys a read passage can match: its id, its title with its text, and (for title-only gold) its title. */
const passageKeys = (p: Passage): ReadonlyArray<string> => [
  `id:${p.id}`,
  `content:${compact(p.title)}\u0000${compact(p.text)}`,
  `title:${compact(p.title)}`,
  `title:${compact(p.id)}`
]

/** A gold passage's key: by id, else by title and text together; title alone only for title-only gold. */
const goldKey = (g: GoldPassage): string | undefined =>
  g.id !== undefined
    ? `id:${g.id}`
    : g.text !== undefined
    ? `content:${compact(g.title ?? "")}\u0000${compact(g.text)}`
    : g.title !== undefined
    ? `title:${compact(g.title)}`
    : undefined

/**
 * The keys of a question's gold passages: `goldPassages` (by id, or by title and text — exact even where many
 * paragraphs share a title), else the legacy `goldTitles` (a title or an id), for questions stored without them.
 */
export const goldKeys = (question: Question): ReadonlyArray<string> => {
  const gold = question.goldPassages !== undefined && question.goldPassages.length > 0
    ? question.goldPassages.flatMap((g) => goldKey(g) ?? [])
    : (question.goldTitles ?? []).map((t) => `title:${compact(t)}`)
  return [...new Set(gold)]
}

/** Whether a passage is one of the question's gold passages. */
export const isGold = (question: Question): (passage: Passage) => boolean => {
  const gold = new Set(goldKeys(question))
  return (passage) => passageKeys(passage).some((k) => gold.has(k))
}

/**
 * Fraction of a question's gold passages found among the passages of the trace up to `maxStep` (all steps when
 * absent). `undefined` when the question has no gold passages.
 */
export const goldRecall = (question: Question, result: PipelineResult, maxStep?: number): number | undefined => {
  const gold = goldKeys(question)
  if (gold.length === 0) return undefined
  const seen = new Set<string>()
  for (const entry of result.trace.passages) {
    if (maxStep !== undefined && entry.step > maxStep) continue
    for (const k of passageKeys(entry.passage)) seen.add(k)
  }
  return gold.filter((g) => seen.has(g)).length / gold.length
}

/** Gold recall after note initialisation (step 0) and at the end, to measure how much the first retrieval misses. */
export const recallInitFinal = (question: Question, result: PipelineResult) => ({
  init: goldRecall(question, result, 0),
  final: goldRecall(question, result)
})
