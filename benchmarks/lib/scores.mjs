// The answer-quality arithmetic the quality benchmarks share: the paper's three answer metrics per question, and
// means over questions reported as percentages.
import { squadEm, squadF1, substringAccuracy } from "@deepnote-rag/eval"

/** The mean of a list of numbers (0 for none). */
export const mean = (xs) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
/** A fraction as a percentage with one decimal. */
export const pct = (x) => Math.round(x * 1000) / 10
/** A number rounded to two decimals. */
export const r2 = (x) => Math.round(x * 100) / 100

/** One answer's exact match, F1 and accuracy (a gold answer contained in it) against the gold answers. */
export const answerScores = (answer, golds) => ({
  em: squadEm(answer, golds),
  f1: squadF1(answer, golds),
  acc: substringAccuracy(answer, golds)
})

/** The three answer metrics over per-question records (as `answerScores` gives them), as percentages. */
export const answerQuality = (perQuestion) => ({
  em: pct(mean(perQuestion.map((s) => s.em))),
  f1: pct(mean(perQuestion.map((s) => s.f1))),
  acc: pct(mean(perQuestion.map((s) => s.acc)))
})
