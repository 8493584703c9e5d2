import { detectLanguage, type Language } from "@deepnote/text"
import { entities } from "./Entities.js"
import type { Idf } from "./Idf.js"
import { normaliseKey, rank, termsOf, type Target, type Unit } from "./Sentences.js"

/**
 * The question's terms (lower-cased, stop words dropped). Chinese is segmented in jieba's search mode on both sides
 * (questions and sentences), so "合作开发" also yields "合作" and "开发".
 */
export const questionTerms = (question: string): ReadonlySet<string> => new Set(termsOf(question))

export const languageOf = (question: string, language: Language | undefined): Language =>
  language ?? detectLanguage(question)

/** Whether a span is already said by the question (as a phrase, or all of its terms). */
export const inQuestion = (span: string, question: string, terms: ReadonlySet<string>): boolean => {
  const key = normaliseKey(span)
  if (key.length === 0 || normaliseKey(question).includes(key)) return true
  const own = termsOf(span)
  return own.length > 0 && own.every((t) => terms.has(t))
}

/**
 * Bridge terms: the terms of entities in these texts that the question does not mention. They link the first hop
 * (what the question names) to the second (what the first hop's passages name: "Shirley Temple" in the film's
 * passage leads to her own passage).
 */
export const bridgeTerms = (texts: ReadonlyArray<string>, question: string, language: Language): ReadonlySet<string> => {
  const terms = questionTerms(question)
  const bridge = new Set<string>()
  for (const text of texts) {
    for (const entity of entities(text, language)) {
      if (entity.kind === "word" || inQuestion(entity.text, question, terms)) continue
      for (const t of termsOf(entity.text)) if (!terms.has(t)) bridge.add(t)
    }
  }
  return bridge
}

/** The first hop: units ranked by question terms alone; their two best (relevant) units are the bridge's sources. */
export const bridgeOf = (units: ReadonlyArray<Unit>, question: string, language: Language, idf: Idf) => {
  const terms = questionTerms(question)
  const sources = rank(units, { question: terms, bridge: new Set(), bridgeWeight: 0 }, idf).slice(0, 2).filter((s) => s.score > 0)
  return { terms, sources, bridge: bridgeTerms(sources.map((s) => s.unit.text), question, language) }
}

/**
 * Two-hop ranking: the question alone finds the first hop; the entities of its two best sentences that the question
 * does not name become bridge terms; the other sentences are then scored against question + bridge, so second-hop
 * sentences (which may share no word with the question) rank too. The two source sentences keep their first-hop
 * score: the bridge must not reward the sentences it came from.
 */
export const twoHop = (units: ReadonlyArray<Unit>, question: string, language: Language, idf: Idf, bridgeWeight: number) => {
  const { bridge, sources, terms } = bridgeOf(units, question, language, idf)
  const target: Target = { question: terms, bridge, bridgeWeight }
  const firstScore = new Map(sources.map((s) => [s.unit.key, s.score]))
  const ranked = rank(units, target, idf)
    .map((s) => ({ unit: s.unit, score: firstScore.get(s.unit.key) ?? s.score }))
    .sort((a, b) => b.score - a.score || a.unit.order - b.unit.order)
  return { target, ranked }
}
