import type { PipelineResult, Question } from "@deepnote/core"

const key = (s: string) => s.trim().toLowerCase()

/**
 * Fraction of a question's gold passages found among the passages of the trace up to `maxStep` (all steps when
 * absent). A gold entry (`Question.goldTitles`) matches a passage by title, or by id (CMRC questions carry the gold
 * paragraph id). `undefined` when the question has no gold passages.
 */
export const goldRecall = (question: Question, result: PipelineResult, maxStep?: number): number | undefined => {
  const gold = [...new Set((question.goldTitles ?? []).map(key))]
  if (gold.length === 0) return undefined
  const seen = new Set<string>()
  for (const entry of result.trace.passages) {
    if (maxStep !== undefined && entry.step > maxStep) continue
    seen.add(key(entry.passage.title))
    seen.add(key(entry.passage.id))
  }
  return gold.filter((g) => seen.has(g)).length / gold.length
}

/** Gold recall after note initialisation (step 0) and at the end, to measure how much the first retrieval misses. */
export const recallInitFinal = (question: Question, result: PipelineResult) => ({
  init: goldRecall(question, result, 0),
  final: goldRecall(question, result)
})
