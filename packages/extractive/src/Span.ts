import type { Language } from "@deepnote-rag/text"
import type { AnswerType } from "./AnswerType.js"
import { inQuestion } from "./Bridge.js"
import { entities, type Entity, isDescriptor, yearOf } from "./Entities.js"
import { proximity, type Reading } from "./Evidence.js"
import { termsOf } from "./Sentences.js"

const asksOrigin = /\b(?:nationality|country|countries|language|ethnicity|heritage|origin|citizen)/iu
const placeCue = /\b(?:in|at|from|near|to|of|based in|located in|headquartered in|born in)\s+(?:the\s+)?$/iu
const personCue =
  /\b(?:by|starring|with|actor|actress|singer|director|writer|author|player|son of|daughter of|wife of|husband of|married)\s+$/iu

/** The unit or counted noun a number question names: "多少公里" → 公里, "how many laps" → laps. */
const unitHint = (question: string): string | undefined =>
  /多少([\p{Script=Han}]{1,2})/u.exec(question)?.[1] ??
    /\bhow (?:many|much) (\p{L}+)/iu.exec(question)?.[1]?.toLowerCase()

/** How well an entity fits the expected answer type (0 = not at all), using its kind and the words around it. */
const fit = (entity: Entity, type: AnswerType, text: string, question: string): number => {
  const before = text.slice(Math.max(0, entity.start - 20), entity.start)
  const after = text.slice(entity.start + entity.text.length, entity.start + entity.text.length + 3)
  switch (type) {
    case "person":
      if (entity.kind !== "name") return entity.kind === "title" ? 0.2 : 0
      return 1 + (personCue.test(before) || /^\s*\(/u.test(after) ? 0.5 : 0) - (placeCue.test(before) ? 0.4 : 0)
    case "place":
      if (entity.kind !== "name") return 0
      return 0.8 + (placeCue.test(before) ? 0.7 : 0)
    case "date":
      return entity.kind === "date" ? 1 : 0
    case "number": {
      if (entity.kind !== "number") return entity.kind === "date" ? 0.2 : 0
      const unit = unitHint(question)
      const said = `${entity.text}${
        text.slice(entity.start + entity.text.length, entity.start + entity.text.length + 12)
      }`
      return unit !== undefined && said.toLowerCase().replace(/^[\d.,\s]+/u, "").startsWith(unit) ? 1.5 : 1
    }
    case "entity":
      return entity.kind === "title" ? 1.2 : entity.kind === "name" || entity.kind === "word" ? 1 : 0.5
  }
}

/**
 * The typed-span answer: among the entity-like spans of the evidence that the question does not already say, the one
 * maximising type fit × (its sentence's relevance to question + bridge + its closeness to the question's terms).
 * Ties go to the earliest span. Undefined when the evidence holds no span of a fitting type.
 */
export const typedSpan = (
  question: string,
  type: AnswerType,
  reading: Reading,
  language: Language
): string | undefined => {
  const terms = new Set(termsOf(question))
  let best: { text: string; score: number } | undefined
  for (const { unit, score } of reading.ranked) {
    for (const entity of entities(unit.text, language)) {
      // "American" in "an American actress" describes; it answers only a question about nationality or origin.
      const f = fit(entity, type, unit.text, question) *
        (isDescriptor(entity, unit.text) && !asksOrigin.test(question) ? 0.3 : 1)
      if (f === 0 || inQuestion(entity.text, question, terms)) continue
      // A bridge entity (named by the first hop, not the question) is usually the way to the answer, not the answer.
      const bridge = type === "entity" && termsOf(entity.text).some((t) => reading.target.bridge.has(t)) ? 0.5 : 1
      const s = bridge * f * (score + proximity(unit.text, entity.start, reading.target, reading.idf))
      if (best === undefined || s > best.score) best = { text: entity.text, score: s }
    }
  }
  if (best === undefined) return undefined
  const wantsYear = type === "date" && /\b(?:what|which) year\b|哪一年|哪年/iu.test(question)
  const year = wantsYear ? yearOf(best.text) : undefined
  return year !== undefined ? String(year) : best.text
}
