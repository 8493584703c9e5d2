import type { TaskType } from "@deepnote-rag/core"
import { comparisonOptions, detectAnswerType, isYesNoQuestion } from "./AnswerType.js"
import { languageOf } from "./Bridge.js"
import { alignedSpan } from "./ChineseSpan.js"
import { chooseOption } from "./Comparison.js"
import { entities } from "./Entities.js"
import { type Evidence, read } from "./Evidence.js"
import { type ExtractiveOptions, resolveOptions } from "./Options.js"
import { typedSpan } from "./Span.js"
import { answerYesNo } from "./YesNo.js"

export interface AnswerOptions extends ExtractiveOptions {
  /** Answer style (default `multihop`: a short span). */
  readonly task?: TaskType
}

/** The fixed reply when the evidence holds nothing to answer from. */
export const unknownAnswer = { en: "unknown", zh: "未知" } as const

/**
 * Answers from the evidence only:
 * - no evidence (or no sentences) → `unknownAnswer`;
 * - `longform` → the 3 most relevant sentences, in reading order;
 * - `yesno` task or a polar question → "yes"/"no" by coverage (`answerYesNo`);
 * - "A or B" questions → one of the two options (`chooseOption`);
 * - otherwise the typed span (`typedSpan`); in Chinese the question-aligned span is tried first for non-numeric
 *   types. When nothing fits, the first entity of the most relevant sentence, else `unknownAnswer`.
 */
export const answerFrom = (question: string, evidence: Evidence | string, options: AnswerOptions = {}): string => {
  const language = languageOf(question, options.language)
  const reading = read(question, evidence, language, resolveOptions(options).answerBridgeWeight)
  const unknown = unknownAnswer[language]
  if (reading.units.length === 0) return unknown
  if (options.task === "longform") {
    const top = reading.ranked.slice(0, 3).sort((a, b) => a.unit.order - b.unit.order)
    return top.map((s) => s.unit.text).join(language === "zh" ? "" : " ")
  }
  if (options.task === "yesno" || isYesNoQuestion(question, language)) return answerYesNo(question, reading, language)
  const choice = comparisonOptions(question, language)
  if (choice !== undefined) return chooseOption(question, choice, reading, language)
  const type = detectAnswerType(question, language)
  if (language === "zh" && type !== "number" && type !== "date") {
    for (const { unit } of reading.ranked.slice(0, 3)) {
      const span = alignedSpan(question, unit.text)
      if (span !== undefined) return span
    }
  }
  const span = typedSpan(question, type, reading, language)
  if (span !== undefined) return span
  const top = reading.ranked[0]
  return (top && top.score > 0 ? entities(top.unit.text, language)[0]?.text : undefined) ?? unknown
}
