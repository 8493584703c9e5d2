import type { Idf } from "./Idf.js"
import { titlePrefix } from "./Sentences.js"

const word = /[\p{L}\p{N}]+/gu

/**
 * Whether a text's word and a question term name the same thing up to inflection: equal, or sharing a prefix of at
 * least five characters and all but two of the shorter word ("director" ~ "directed", "producer" ~ "produced",
 * "founder" ~ "founded"). No stemmer: a prefix rule is enough for the relation words of multi-hop questions.
 */
export const sameStem = (a: string, b: string): boolean => {
  if (a === b) return true
  const shorter = Math.min(a.length, b.length)
  let common = 0
  while (common < shorter && a[common] === b[common]) common++
  return common >= Math.max(5, shorter - 2)
}

/**
 * Closeness of a character offset to the question's relation words in a text: the question terms that name no entity
 * ("director", "died", "producer"), matched up to inflection (`sameStem`: "directed by Curtis Bernhardt" is next to
 * "director"). Σ idf(r) / (1 + distance / 25) over the relation terms found, divided by their IDF mass; words in a
 * `Title: ` prefix are context, never nearer than 100 characters. The bridge a question asks for is the entity its
 * relation words point at, which the question's entity names (the anchors) alone do not tell apart from the other
 * names of the first hop's passage (the director and the star of one film).
 */
export const relationProximity = (text: string, at: number, relation: ReadonlyArray<string>, idf: Idf): number => {
  const lower = text.toLowerCase()
  const prefix = titlePrefix(text).length
  const nearest = new Map<string, number>()
  for (const m of lower.matchAll(word)) {
    const i = m.index ?? 0
    for (const r of relation) {
      if (!sameStem(m[0], r)) continue
      const distance = i < prefix ? Math.max(100, at - i) : Math.abs(i - at)
      nearest.set(r, Math.min(nearest.get(r) ?? Infinity, distance))
    }
  }
  let total = 0
  let score = 0
  for (const r of relation) {
    const w = idf(r)
    total += w
    const d = nearest.get(r)
    if (d !== undefined) score += w / (1 + d / 25)
  }
  return total === 0 ? 0 : score / total
}
