/** Normalises a query for duplicate detection: case, punctuation, list markers and spacing do not matter. */
export const normaliseQuery = (query: string): string =>
  query
    .normalize("NFKC")
    .toLowerCase()
    .replace(/^\s*(?:\d+[.)]|[-*•])\s*/u, "")
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/gu, " ")
    .trim()

/**
 * Keeps the proposed queries that repeat neither the question, an earlier query, nor each other, up to `count`.
 * Returns the kept ones and the dropped ones (for the trace).
 */
export const selectNewQueries = (
  proposed: ReadonlyArray<string>,
  question: string,
  log: ReadonlyArray<string>,
  count: number
): { readonly kept: ReadonlyArray<string>; readonly dropped: ReadonlyArray<string> } => {
  const seen = new Set([normaliseQuery(question), ...log.map(normaliseQuery)])
  const kept: Array<string> = []
  const dropped: Array<string> = []
  for (const query of proposed) {
    const key = normaliseQuery(query)
    if (key.length === 0 || seen.has(key) || kept.length >= count) {
      dropped.push(query)
      continue
    }
    seen.add(key)
    kept.push(query.trim())
  }
  return { kept, dropped }
}
