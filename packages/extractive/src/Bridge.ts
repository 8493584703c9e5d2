import { detectLanguage, type Language } from "@deepnote-rag/text"
import { entities, isDescriptor } from "./Entities.js"
import type { Idf } from "./Idf.js"
import { normaliseKey, rank, relevance, share, type Target, termsOf, type Unit } from "./Sentences.js"

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
 * The question's anchors: the terms of the entities it names ("Corliss Archer", "Kiss", "Tell"). They identify the
 * first hop, whereas its other words ("government", "position", "held") are shared by many unrelated sentences.
 * In Chinese (no capitals) and in questions that name no entity, every question term is an anchor.
 */
export const anchorTerms = (question: string, language: Language): ReadonlySet<string> => {
  const terms = questionTerms(question)
  if (language === "zh") return terms
  const anchors = new Set(entities(question, language).flatMap((e) => termsOf(e.text)).filter((t) => terms.has(t)))
  return anchors.size > 0 ? anchors : terms
}

/**
 * Whether a sentence is linked to the question by more than common words: it holds an anchor or a bridge term, or
 * at least `coverage` of the question's terms (counted, not IDF-weighted: over a handful of sentences, common words
 * such as "held" are rare and would weigh as much as names).
 */
export const isLinked = (
  u: Unit,
  links: {
    readonly anchors: ReadonlySet<string>
    readonly bridge: ReadonlySet<string>
    readonly question: ReadonlySet<string>
  },
  idf: Idf,
  coverage: number
): boolean =>
  [...links.anchors, ...links.bridge].some((t) => u.terms.has(t) && idf(t) > 0) ||
  [...links.question].filter((t) => u.terms.has(t)).length >= coverage * links.question.size

/**
 * Bridge terms: the terms of entities in these texts that the question does not mention. They link the first hop
 * (what the question names) to the second (what the first hop's passages name: "Shirley Temple" in the film's
 * passage leads to her own passage).
 */
export const bridgeTerms = (
  texts: ReadonlyArray<string>,
  question: string,
  language: Language
): ReadonlySet<string> => {
  const terms = questionTerms(question)
  const bridge = new Set<string>()
  for (const text of texts) {
    for (const entity of entities(text, language)) {
      if (entity.kind === "word" || isDescriptor(entity, text) || inQuestion(entity.text, question, terms)) continue
      for (const t of termsOf(entity.text)) if (!terms.has(t)) bridge.add(t)
    }
  }
  return bridge
}

/**
 * The first hop: the two units that best hold the question's anchors and terms (anchor share + relevance) are the
 * bridge's sources; each keeps its relevance to the question terms alone as its score.
 */
export const bridgeOf = (units: ReadonlyArray<Unit>, question: string, language: Language, idf: Idf) => {
  const terms = questionTerms(question)
  const anchors = anchorTerms(question, language)
  const target: Target = { question: terms, bridge: new Set(), bridgeWeight: 0 }
  const sources = units
    .map((unit) => ({
      unit,
      score: relevance(unit, target, idf),
      hop: share(unit, anchors, idf) + relevance(unit, target, idf)
    }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.hop - a.hop || a.unit.order - b.unit.order)
    .slice(0, 2)
    .map(({ score, unit }) => ({ unit, score }))
  return { terms, anchors, sources, bridge: bridgeTerms(sources.map((s) => s.unit.text), question, language) }
}

/**
 * Two-hop ranking: the question alone finds the first hop; the entities of its two best sentences that the question
 * does not name become bridge terms; the other sentences are then scored against question + bridge, so second-hop
 * sentences (which may share no word with the question) rank too. The two source sentences keep their first-hop
 * score: the bridge must not reward the sentences it came from.
 */
export const twoHop = (
  units: ReadonlyArray<Unit>,
  question: string,
  language: Language,
  idf: Idf,
  bridgeWeight: number
) => {
  const { anchors, bridge, sources, terms } = bridgeOf(units, question, language, idf)
  const target: Target = { question: terms, bridge, bridgeWeight }
  const firstScore = new Map(sources.map((s) => [s.unit.key, s.score]))
  const ranked = rank(units, target, idf)
    .map((s) => ({ unit: s.unit, score: firstScore.get(s.unit.key) ?? s.score }))
    .sort((a, b) => b.score - a.score || a.unit.order - b.unit.order)
  return { target, anchors, ranked }
}
