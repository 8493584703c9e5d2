import { cjkBigrams, hasCjk, tokenize } from "@deepnote-rag/text"

/** Query terms beyond this many are dropped (a 500-character planner query stays bounded). */
const maxTerms = 64

const unique = (xs: ReadonlyArray<string>): Array<string> => Array.from(new Set(xs)).slice(0, maxTerms)

/** An FTS5 string literal: always double-quoted, inner quotes doubled, so no user text is ever FTS5 syntax. */
export const quoteTerm = (term: string): string => `"${term.replaceAll("\"", "\"\"")}"`

/**
 * Builds a safe FTS5 MATCH expression from free text: the OR of the quoted query words (jieba precise mode for
 * Chinese, stop words removed) on the word columns, OR'd with the quoted CJK bigrams on the bigram columns.
 * Returns undefined when the text has no searchable term (e.g. only stop words or punctuation).
 */
export const buildMatch = (query: string): string | undefined => {
  const words = unique(tokenize(query))
  const grams = hasCjk(query) ? unique(cjkBigrams(query)) : []
  const parts: Array<string> = []
  if (words.length > 0) parts.push(`{title body} : (${words.map(quoteTerm).join(" OR ")})`)
  if (grams.length > 0) parts.push(`{title_cjk body_cjk} : (${grams.map(quoteTerm).join(" OR ")})`)
  return parts.length > 0 ? parts.join(" OR ") : undefined
}
