import type { Language } from "@deepnote-rag/text"
import { entities, numberOf, yearOf } from "./Entities.js"
import { mentions, type Reading } from "./Evidence.js"
import { termsOf } from "./Sentences.js"
import { coverage } from "./YesNo.js"

type Criterion = "earliest" | "latest" | "most" | "least" | "match"

const criteria: Record<Language, ReadonlyArray<readonly [RegExp, Criterion]>> = {
  en: [
    [/\b(?:first|earlier|earliest|older|oldest|before|sooner)\b/iu, "earliest"],
    [/\b(?:recently|recent|later|latest|newer|newest|younger|youngest|last)\b/iu, "latest"],
    [/\b(?:more|most|larger|largest|higher|highest|bigger|biggest|taller|tallest|greater|busier|busiest)\b/iu, "most"],
    [/\b(?:fewer|fewest|less|least|smaller|smallest|lower|lowest|shorter|shortest)\b/iu, "least"]
  ],
  zh: [
    [/更早|最早|先|年长|更老/u, "earliest"],
    [/更晚|最晚|最近|更新|年轻/u, "latest"],
    [/更多|最多|更大|最大|更高|最高|更长|最长/u, "most"],
    [/更少|最少|更小|最小|更低|最低|更短|最短/u, "least"]
  ]
}

/** The value an option's evidence gives for the criterion: its first year, or its largest number. */
const valueOf = (criterion: Criterion, reading: Reading, option: string, language: Language): number | undefined => {
  for (const u of mentions(reading.units, option)) {
    const found = entities(u.text, language)
    const values = criterion === "earliest" || criterion === "latest"
      ? found.filter((e) => e.kind === "date").map((e) => yearOf(e.text))
      : found.filter((e) => e.kind === "number").map((e) => numberOf(e.text))
    const defined = values.filter((v): v is number => v !== undefined)
    if (defined.length > 0) return criterion === "most" || criterion === "least" ? Math.max(...defined) : defined[0]
  }
  return undefined
}

/** How well an option's evidence matches the rest of the question (its terms outside both options). */
const matchOf = (reading: Reading, option: string, rest: ReadonlyArray<string>): number =>
  Math.max(0, ...mentions(reading.units, option).map((u) => coverage(u, rest, reading.idf)))

/**
 * Chooses between the two options a question names ("Who was born first, A or B?"). With a criterion word
 * (first/earlier/more/fewer…) it compares the first year or the largest number each option's sentences give; otherwise
 * (or when a value is missing) the option whose sentences best match the rest of the question wins. Ties: the first.
 */
export const chooseOption = (
  question: string,
  options: readonly [string, string],
  reading: Reading,
  language: Language
): string => {
  const criterion = criteria[language].find(([pattern]) => pattern.test(question))?.[1] ?? "match"
  const [a, b] = options
  if (criterion !== "match") {
    const va = valueOf(criterion, reading, a, language)
    const vb = valueOf(criterion, reading, b, language)
    if (va !== undefined && vb !== undefined && va !== vb) {
      const aWins = criterion === "earliest" || criterion === "least" ? va < vb : va > vb
      return aWins ? a : b
    }
  }
  const optionTerms = new Set([...termsOf(a), ...termsOf(b)])
  const rest = [...reading.target.question].filter((t) => !optionTerms.has(t))
  return matchOf(reading, b, rest) > matchOf(reading, a, rest) ? b : a
}
