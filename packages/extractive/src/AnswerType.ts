import type { Language } from "@deepnote-rag/text"

/** What kind of span a question asks for. */
export type AnswerType = "person" | "place" | "date" | "number" | "entity"

const englishTypes: ReadonlyArray<readonly [RegExp, AnswerType]> = [
  [
    /\bhow (?:many|much)\b|\bwhat (?:number|percentage|amount)\b|\bhow (?:long|old|tall|far|big|large|high)\b/u,
    "number"
  ],
  [/\bwhen\b|\b(?:what|which|in what|in which) (?:year|decade|century|date|month|day|time|period|era)\b/u, "date"],
  [
    /\bwho(?:m|se)?\b|\b(?:what|which) (?:person|man|woman|actor|actress|singer|director|author|writer|player|politician)\b/u,
    "person"
  ],
  [
    /\bwhere\b|\b(?:what|which|in what|in which) (?:city|country|state|town|county|place|region|island|continent|location|province|village|borough|neighborhood)\b/u,
    "place"
  ]
]

const chineseTypes: ReadonlyArray<readonly [RegExp, AnswerType]> = [
  [/哪一年|哪年|何年|何时|什么时候|哪一天|哪天|几月|几号|什么时间|哪个年代|哪一时期/u, "date"],
  [/多少|几[个种次位名座条部家年岁人]?|多大|多长|多高|多远|多重|多久/u, "number"],
  [/谁|哪位|什么人|哪个人/u, "person"],
  [/哪里|哪儿|何处|何地|什么地方|哪个(?:国家|城市|省|地区|地方)|哪座城市|哪国/u, "place"]
]

/** The expected answer type, from the question's wh-phrase (English) or question word (Chinese). */
export const detectAnswerType = (question: string, language: Language): AnswerType => {
  const table = language === "zh" ? chineseTypes : englishTypes
  const text = language === "zh" ? question : question.toLowerCase()
  return table.find(([pattern]) => pattern.test(text))?.[1] ?? "entity"
}

const auxiliaries =
  /^(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|should|shall|may|might|must)\b/iu

/** Whether a question expects "yes" or "no" (a polar question that is not an "A or B" choice). */
export const isYesNoQuestion = (question: string, language: Language): boolean => {
  if (language === "zh") {
    return /是否|是不是|有没有|能否|可否|对吗|吗\s*[？?]?\s*$/u.test(question) && !/还是/u.test(question)
  }
  return auxiliaries.test(question.trim()) && comparisonOptions(question, language) === undefined
}

const cleanOption = (s: string): string =>
  s.trim().replace(/^(?:is|are|was|were|did|does|do)\s+/iu, "").replace(/^(?:the|a|an)\s+/iu, "").replace(/[,;]+$/u, "")
    .replace(/[?？.!]+$/u, "").replace(/^["“']|["”']$/gu, "").trim()

/** The capitalised (or quoted) phrase that ends a text: the first option of "… Erika Jayne or …". */
const trailingPhrase = (text: string): string => {
  const quoted = /["“]([^"“”]+)["”]\s*$/u.exec(text)
  if (quoted) return quoted[1]!
  const words = text.trim().split(/\s+/u)
  let i = words.length
  while (i > 0 && /^(?:[\p{Lu}\p{N}"“]|(?:of|the|and|de|da|v\.|von|van|y)$)/u.test(words[i - 1]!)) i--
  return words.slice(i).join(" ")
}

/** The capitalised (or quoted) phrase that starts a text: the second option of "… or Marco Da Silva ?". */
const leadingPhrase = (text: string): string => {
  const quoted = /^\s*["“]([^"“”]+)["”]/u.exec(text)
  if (quoted) return quoted[1]!
  const words = text.trim().split(/\s+/u)
  let i = 0
  while (i < words.length && /^(?:[\p{Lu}\p{N}]|(?:of|the|and|de|da|v\.|von|van|y)$)/u.test(words[i]!)) i++
  while (i > 0 && /^(?:of|the|and|de|da|von|van|y)$/u.test(words[i - 1]!)) i--
  return words.slice(0, i).join(" ")
}

/**
 * The two options of a choice question ("Who was born first, A or B?", "Is A or B …?", "A还是B？"), if it is one.
 */
export const comparisonOptions = (question: string, language: Language): readonly [string, string] | undefined => {
  if (language === "zh") {
    const m = /([^，,：:？?]+?)还是([^，,？?]+)/u.exec(question)
    return m ? [m[1]!.replace(/^(?:是|在|为)/u, "").trim(), m[2]!.trim()] as const : undefined
  }
  const q = question.trim()
  const tail = /(?:,|:|--|—)\s*([^,:]+?)\s+or\s+([^,:?]+?)\s*(?:\?\s*$|,|$)/iu.exec(q)
  if (tail) return [cleanOption(tail[1]!), cleanOption(tail[2]!)] as const
  const or = /\s+or\s+/iu.exec(q)
  if (!or) return undefined
  const first = cleanOption(trailingPhrase(q.slice(0, or.index)))
  const rest = q.slice(or.index + or[0].length)
  const second = cleanOption(leadingPhrase(rest.replace(/^\s*(?:the|a|an)\s+/iu, "")))
  return first.length > 0 && second.length > 0 ? [first, second] as const : undefined
}
