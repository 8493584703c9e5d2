import { cjkBigrams, hasCjk, tokenize } from "@deepnote-rag/text"

/** Query terms beyond this many are dropped (a 500-character planner query stays bounded). */
const maxTerms = 64

const unique = (xs: ReadonlyArray<string>): Array<string> => Array.from(new Set(xs)).slice(0, maxTerms)

/** An FTS5 string literal: always double-quoted, inner quotes doubled, so no user text is ever FTS5 syntax. */
export const quoteTerm = (term: string): string => `"${term.replaceAll("\"", "\"\"")}"`

/** The columns a query word is looked for in, and those of a CJK bigram. */
const wordColumns = "{title body}"
const gramColumns = "{title_cjk body_cjk}"

/**
 * A search's MATCH expression and its phrases in the expression's order: each phrase alone is the MATCH expression of
 * that one term on its columns (`{title body} : "term"`). FTS5's BM25 of the whole expression is the sum, in this order,
 * of each phrase's BM25 alone (see `TermScores`).
 */
export interface MatchQuery {
  readonly expression: string
  readonly phrases: ReadonlyArray<string>
}

/**
 * Builds a safe FTS5 MATCH expression from free text: the OR of the quoted query words (jieba precise mode for
 * Chinese, stop words removed) on the word columns, OR'd with the quoted CJK bigrams on the bigram columns.
 * Returns undefined when the text has no searchable term (e.g. only stop words or punctuation).
 */
export const matchQuery = (query: string): MatchQuery | undefined => {
  const words = unique(tokenize(query)).map(quoteTerm)
  const grams = (hasCjk(query) ? unique(cjkBigrams(query)) : []).map(quoteTerm)
  const parts: Array<string> = []
  if (words.length > 0) parts.push(`${wordColumns} : (${words.join(" OR ")})`)
  if (grams.length > 0) parts.push(`${gramColumns} : (${grams.join(" OR ")})`)
  if (parts.length === 0) return undefined
  return {
    expression: parts.join(" OR "),
    phrases: [...words.map((w) => `${wordColumns} : ${w}`), ...grams.map((g) => `${gramColumns} : ${g}`)]
  }
}

/** The MATCH expression of `matchQuery`, or undefined when the text has no searchable term. */
export const buildMatch = (query: string): string | undefined => matchQuery(query)?.expression
