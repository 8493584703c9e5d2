import { detectLanguage, tokenize, type Language } from "@deepnote/text"
import { entities } from "./Entities.js"
import { normaliseKey } from "./Sentences.js"

/** The question's terms (lower-cased, stop words dropped, jieba-segmented for Chinese). */
export const questionTerms = (question: string): ReadonlySet<string> => new Set(tokenize(question))

export const languageOf = (question: string, language: Language | undefined): Language =>
  language ?? detectLanguage(question)

/** Whether a span is already said by the question (as a phrase, or all of its terms). */
export const inQuestion = (span: string, question: string, terms: ReadonlySet<string>): boolean => {
  const key = normaliseKey(span)
  if (key.length === 0 || normaliseKey(question).includes(key)) return true
  const own = tokenize(span)
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
      for (const t of tokenize(entity.text)) if (!terms.has(t)) bridge.add(t)
    }
  }
  return bridge
}
