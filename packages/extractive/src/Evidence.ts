import type { Language } from "@deepnote-rag/text"
import { twoHop } from "./Bridge.js"
import { type Idf, makeIdf } from "./Idf.js"
import {
  normaliseKey,
  noteUnits,
  type PassageLike,
  passageUnits,
  type Target,
  termsOf,
  titlePrefix,
  type Unit
} from "./Sentences.js"

/** What the answerer may read (core's `AnswerEvidence` fits). A plain string is read as a note. */
export type Evidence =
  | { readonly _tag: "Note"; readonly note: { readonly text: string } }
  | { readonly _tag: "Passages"; readonly passages: ReadonlyArray<PassageLike> }
  | { readonly _tag: "None" }

/** The evidence as sentences, with an IDF over them and the question's target (question + bridge terms). */
export interface Reading {
  readonly units: ReadonlyArray<Unit>
  readonly idf: Idf
  readonly target: Target
  /** Units best first. */
  readonly ranked: ReadonlyArray<{ readonly unit: Unit; readonly score: number }>
}

export const read = (
  question: string,
  evidence: Evidence | string,
  language: Language,
  bridgeWeight: number
): Reading => {
  const units = typeof evidence === "string"
    ? noteUnits(evidence)
    : evidence._tag === "Note"
    ? noteUnits(evidence.note.text)
    : evidence._tag === "Passages"
    ? passageUnits(evidence.passages)
    : []
  const idf = makeIdf(units.map((u) => u.terms))
  const { target, ranked } = twoHop(units, question, language, idf, bridgeWeight)
  return { units, idf, target, ranked }
}

/** The units that talk about a phrase: holding it verbatim (normalised) or most of its terms. */
export const mentions = (units: ReadonlyArray<Unit>, phrase: string): Array<Unit> => {
  const key = normaliseKey(phrase)
  const terms = termsOf(phrase)
  return units.filter((u) => {
    if (key.length > 0 && u.key.includes(key)) return true
    const held = terms.filter((t) => u.terms.has(t)).length
    return terms.length > 0 && held / terms.length >= 0.6
  })
}

/**
 * Closeness of a character offset to the question terms in a text: Σ idf(t) / (1 + distance / 25) over the question
 * terms found in the text (nearest occurrence), divided by the question's IDF mass.
 */
export const proximity = (text: string, at: number, target: Target, idf: Idf): number => {
  const lower = text.toLowerCase()
  const prefix = titlePrefix(text).length
  let total = 0
  let score = 0
  for (const term of target.question) {
    const w = idf(term)
    total += w
    let nearest = Infinity
    for (let i = lower.indexOf(term); i >= 0; i = lower.indexOf(term, i + 1)) {
      // A term in the `Title: ` prefix is context, not a neighbour: never nearer than 100 characters.
      nearest = Math.min(nearest, i < prefix ? Math.max(100, at - i) : Math.abs(i - at))
    }
    if (nearest < Infinity) score += w / (1 + nearest / 25)
  }
  return total === 0 ? 0 : score / total
}
