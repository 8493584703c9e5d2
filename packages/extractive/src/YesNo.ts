import type { Language } from "@deepnote-rag/text"
import { entities } from "./Entities.js"
import { mentions, type Reading } from "./Evidence.js"
import type { Idf } from "./Idf.js"
import { termsOf, type Unit } from "./Sentences.js"

/** A few country names and their adjectives, so "from the United States" matches "an American band". */
const equivalents: ReadonlyArray<ReadonlyArray<string>> = [
  ["american", "america", "united", "states", "us", "usa"],
  ["english", "england", "british", "britain", "uk"],
  ["french", "france"],
  ["german", "germany"],
  ["italian", "italy"],
  ["chinese", "china"],
  ["canadian", "canada"],
  ["australian", "australia"],
  ["irish", "ireland"],
  ["swedish", "sweden"],
  ["austrian", "austria"],
  ["美国", "美籍"],
  ["中国", "中华"]
]

/** A term, its equivalents and their naive singular/plural forms ("musicians" ~ "musician"). */
const equivalentsOf = (term: string): ReadonlyArray<string> =>
  (equivalents.find((g) => g.includes(term)) ?? [term]).flatMap((t) => [t, `${t}s`, t.replace(/(?:e?s)$/u, "")])

const expand = (terms: ReadonlySet<string>): Set<string> => new Set([...terms].flatMap(equivalentsOf))

/** Share of the predicate's IDF mass a sentence holds (a term or one of its equivalents). */
export const coverage = (unit: Unit, predicate: ReadonlyArray<string>, idf: Idf): number => {
  let total = 0
  let held = 0
  for (const term of predicate) {
    const forms = equivalentsOf(term)
    const w = Math.max(...forms.map(idf))
    total += w
    if (forms.some((t) => unit.terms.has(t))) held += w
  }
  return total === 0 ? 1 : held / total
}

/** Share of the predicate a subject's best sentence must hold for "yes". */
const yesCoverage = 0.6

/** Capitalised one-word descriptors of a subject ("American", "Swedish"), for "the same nationality" questions. */
const descriptors = (reading: Reading, subject: string, language: Language): Set<string> => {
  const own = new Set(termsOf(subject))
  const first = mentions(reading.units, subject)[0]
  if (first === undefined) return new Set()
  const words = entities(first.text, language)
    .filter((e) => (e.kind === "name" || e.kind === "word") && !e.text.includes(" "))
    .flatMap((e) => termsOf(e.text))
    .filter((t) => !own.has(t))
  return expand(new Set(words))
}

/**
 * Yes/no by coverage. Subjects are the names and titles the question mentions; the predicate is the rest of its
 * terms (with country/adjective equivalents). "Yes" iff every subject has a sentence covering at least 60% of the
 * predicate's IDF mass (`yesCoverage`, or, for "the same …" questions, iff the subjects share a one-word descriptor such as a
 * nationality). Without subjects, the best sentence must cover half of the question.
 */
export const answerYesNo = (question: string, reading: Reading, language: Language): "yes" | "no" => {
  const subjects = entities(question, language)
    .filter((e) => e.kind === "name" || e.kind === "title")
    .flatMap((e) => e.text.split(/\s+and\s+|和|与/u))
  if (subjects.length >= 2 && /\bsame\b|相同|同一|一样/iu.test(question)) {
    const [first, ...others] = subjects.map((s) => descriptors(reading, s, language))
    return others.every((d) => [...d].some((t) => first!.has(t))) && first!.size > 0 ? "yes" : "no"
  }
  const subjectTerms = new Set(subjects.flatMap((s) => termsOf(s)))
  const predicate = [...reading.target.question].filter((t) => !subjectTerms.has(t))
  const best = (units: ReadonlyArray<Unit>) => Math.max(0, ...units.map((u) => coverage(u, predicate, reading.idf)))
  if (subjects.length === 0) return best(reading.units) >= yesCoverage ? "yes" : "no"
  return subjects.every((s) => best(mentions(reading.units, s)) >= yesCoverage) ? "yes" : "no"
}
