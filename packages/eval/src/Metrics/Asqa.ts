import { Schema } from "effect"
import { normalizeAnswer } from "./Normalize.js"

/** One disambiguated reading of an ASQA question with its short answers (ALCE format). */
export const QaPair = Schema.Struct({
  question: Schema.optional(Schema.String),
  short_answers: Schema.Array(Schema.String)
})
export type QaPair = typeof QaPair.Type

/** Whether any normalised short answer is a substring of the normalised output (ALCE `exact_presence`). */
export const exactPresence = (shortAnswers: ReadonlyArray<string>, output: string): boolean => {
  const context = normalizeAnswer(output)
  return shortAnswers.some((answer) => context.includes(normalizeAnswer(answer)))
}

/** ASQA STR-EM of one question: the fraction of its qa_pairs covered by the output (0 when it has none). */
export const strEm = (output: string, qaPairs: ReadonlyArray<QaPair>): number =>
  qaPairs.length === 0 ? 0 : qaPairs.filter((pair) => exactPresence(pair.short_answers, output)).length / qaPairs.length

/** ASQA STR-Hit of one question: 1 when every qa_pair is covered. */
export const strHit = (output: string, qaPairs: ReadonlyArray<QaPair>): number =>
  qaPairs.length > 0 && strEm(output, qaPairs) === 1 ? 1 : 0
