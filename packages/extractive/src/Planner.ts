import { inQuestion, languageOf, questionTerms } from "./Bridge.js"
import { entities, type EntityKind } from "./Entities.js"
import { makeIdf, mass } from "./Idf.js"
import { resolveOptions, type ExtractiveOptions } from "./Options.js"
import { noteUnits, normaliseKey, relevance, termsOf } from "./Sentences.js"

const kindWeight: Record<EntityKind, number> = { title: 1.2, name: 1, word: 0.8, date: 0.5, number: 0.4 }

/**
 * Query refinement: the note's most salient entities that neither the question nor any earlier query names, each
 * followed by the question's rarest keywords (so the query also retrieves on its own). Salience = mean IDF of the
 * entity's terms × kind weight (titles and names first) × (0.2 + relevance of its sentence to the question)
 * × 1.5 per repeat.
 * Returns at most `count` queries, possibly none when nothing new is salient.
 */
export const planQueries = (
  question: string,
  note: string,
  queryLog: ReadonlyArray<string>,
  count: number,
  options: ExtractiveOptions = {}
): ReadonlyArray<string> => {
  const opts = resolveOptions(options)
  const language = languageOf(question, options.language)
  const units = noteUnits(note)
  const terms = questionTerms(question)
  const idf = makeIdf([...units.map((u) => u.terms), terms])
  const logged = queryLog.map(normaliseKey)
  const candidates = new Map<string, { text: string; score: number; first: number }>()
  let position = 0
  for (const u of units) {
    // Entities of question-relevant sentences are the likely bridges; elsewhere they are context.
    const weight = 0.2 + relevance(u, { question: terms, bridge: new Set(), bridgeWeight: 0 }, idf)
    for (const entity of entities(u.text, language)) {
      position++
      const key = normaliseKey(entity.text)
      if (key.length < 2 || inQuestion(entity.text, question, terms) || logged.some((q) => q.includes(key))) continue
      const seen = candidates.get(key)
      if (seen !== undefined) {
        candidates.set(key, { ...seen, score: seen.score * 1.5 })
        continue
      }
      const own = termsOf(entity.text).filter((t) => !terms.has(t))
      const meanIdf = own.length === 0 ? 0 : mass(own, idf) / own.length
      candidates.set(key, { text: entity.text, score: meanIdf * kindWeight[entity.kind] * weight, first: position })
    }
  }
  const keywords = [...terms]
    .map((t, i) => ({ t, w: idf(t), i }))
    .sort((a, b) => b.w - a.w || a.i - b.i)
    .slice(0, opts.queryKeywords)
    .sort((a, b) => a.i - b.i)
    .map((k) => k.t)
  return [...candidates.values()]
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, Math.max(0, count))
    .map((c) => [c.text, ...keywords].join(" "))
}

/** The planner's output as one text, one query per line (what an LLM planner would print). */
export const planText = (queries: ReadonlyArray<string>): string => queries.join("\n")
