import type { Agreement, Question } from "@deepnote-rag/core"
import { substringAccuracy } from "@deepnote-rag/eval"

const compare = (chosen: number, rejected: number): Agreement =>
  chosen > rejected ? "agree" : chosen < rejected ? "disagree" : "tie"

/** Notes (init, update): does the chosen note hold a gold answer where the rejected one does not? */
export const noteAgreement = (question: Question, chosen: string, rejected: string): Agreement | undefined => {
  const golds = question.answers ?? []
  if (golds.length === 0) return undefined
  return compare(substringAccuracy(chosen, golds), substringAccuracy(rejected, golds))
}

const headOf = (title: string) => title.replace(/\s*[(（][^)）]*[)）]\s*$/u, "").trim().toLowerCase()

/**
 * Queries: does the chosen set name more gold passages (by title, the ones the question does not already name)? A
 * query that names the bridge entity retrieves the evidence the note lacks.
 */
export const queryAgreement = (question: Question, chosen: string, rejected: string): Agreement | undefined => {
  const asked = question.text.toLowerCase()
  const titles = [...new Set((question.goldTitles ?? []).map(headOf))].filter((t) => t.length > 0 && !asked.includes(t))
  if (titles.length === 0) return undefined
  const named = (text: string) => titles.filter((t) => text.toLowerCase().includes(t)).length
  return compare(named(chosen), named(rejected))
}
