import type { Language } from "@deepnote-rag/text"
import { prefixedTitles, subjectOf } from "./BridgeCandidates.js"
import { entities } from "./Entities.js"
import { normaliseKey, titlePrefix, type Unit } from "./Sentences.js"

/**
 * The entities the question names (quoted titles and names of two words or more: a one-word name is as often a
 * fragment that the surface rules split off a title — "Kiss" and "Tell" of "Kiss and Tell" — as a name) whose own
 * passage the note does not show — no line comes from it (its `Title: ` prefix, or a line opening with it, a short
 * word such as "My" or "The" aside) — and that
 * no earlier query names; in question order. The first retrieval often finds one side of a comparison ("Which film
 * came out first, X or Y?") and misses the other; the note then holds no bridge to it, but the question names it.
 */
export const uncoveredQuestionEntities = (
  question: string,
  units: ReadonlyArray<Unit>,
  queryLog: ReadonlyArray<string>,
  language: Language
): ReadonlyArray<string> => {
  const titles = prefixedTitles(units)
  const shown = new Set<string>()
  const openings: Array<string> = []
  for (const u of units) {
    shown.add(subjectOf(u, entities(u.text, language), titles))
    if (titlePrefix(u.text) === "") openings.push(u.key)
  }
  const logged = queryLog.map(normaliseKey)
  const out: Array<string> = []
  for (const entity of entities(question, language)) {
    if (entity.kind !== "title" && !(entity.kind === "name" && /\s/u.test(entity.text))) continue
    const key = normaliseKey(entity.text)
    // "My Cousin from Warsaw is…" shows the question's "Cousin From Warsaw" (its leading "My" is no part of a name)
    const opens = (line: string) => line.slice(0, key.length + 6).includes(key)
    if (key.length < 2 || [...shown].some((s) => s.includes(key)) || openings.some(opens)) continue
    if (logged.some((q) => q.includes(key)) || out.some((e) => normaliseKey(e) === key)) continue
    out.push(entity.text)
  }
  return out
}
