/**
 * Inverse document frequency over the documents at hand (sentences of the passages or notes being compared).
 * BM25's smoothed form `ln(1 + (N − df + 0.5) / (df + 0.5))`: positive for every term the documents hold, and 0 for
 * terms they never hold (those cannot tell sentences apart, so they weigh nothing in any score or mass).
 * No global corpus is needed: rare-in-context terms are what tell sentences apart.
 */
export type Idf = (term: string) => number

export const makeIdf = (documents: ReadonlyArray<ReadonlySet<string>>): Idf => {
  const df = new Map<string, number>()
  for (const terms of documents) {
    for (const term of terms) df.set(term, (df.get(term) ?? 0) + 1)
  }
  const n = documents.length
  return (term) => {
    const d = df.get(term) ?? 0
    if (d === 0) return 0
    return Math.log(1 + (n - d + 0.5) / (d + 0.5))
  }
}

/** Sum of the IDF of a set of terms. */
export const mass = (terms: Iterable<string>, idf: Idf): number => {
  let total = 0
  for (const term of terms) total += idf(term)
  return total
}
