/** The constant of reciprocal-rank fusion (Cormack et al., 2009). */
export const rrfK = 60

/**
 * Reciprocal-rank fusion: each item scores Σ 1/(k + rank) over the lists it appears in (rank from 1), items are
 * merged by `id`, and ties keep first-seen order. The returned items carry the fused score.
 */
export const reciprocalRankFusion = <A extends { readonly id: string; readonly score: number }>(
  lists: ReadonlyArray<ReadonlyArray<A>>,
  k: number = rrfK
): Array<A> => {
  const fused = new Map<string, { item: A; score: number; order: number }>()
  for (const list of lists) {
    list.forEach((item, i) => {
      const entry = fused.get(item.id)
      if (entry === undefined) fused.set(item.id, { item, score: 1 / (k + i + 1), order: fused.size })
      else entry.score += 1 / (k + i + 1)
    })
  }
  return Array.from(fused.values())
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => ({ ...item, score }))
}

/**
 * Fusion for a step's planned queries: reciprocal-rank fusion, except that the best candidate of every list comes
 * first. Each query is retrieved together with the question, so plain RRF credits passages that match the question
 * in every list and can push out the one passage a planned query was written to find (its list's first); the
 * guarantee keeps it.
 */
export const fuseQueries = <A extends { readonly id: string; readonly score: number }>(
  lists: ReadonlyArray<ReadonlyArray<A>>,
  k: number = rrfK
): Array<A> => {
  const fused = reciprocalRankFusion(lists, k)
  const firsts = new Set(lists.flatMap((list) => (list[0] === undefined ? [] : [list[0].id])))
  return [...fused.filter((item) => firsts.has(item.id)), ...fused.filter((item) => !firsts.has(item.id))]
}

/**
 * The best candidate of every lead list first (in lead order, each passage once), then `fused` without them. A lead is
 * a planned query retrieved alone (`both` composition): its first find is what it was written to find, and no
 * question term can push it out, whereas its other candidates are left to the fused lists.
 */
export const leadsFirst = <A extends { readonly id: string }>(
  leads: ReadonlyArray<ReadonlyArray<A>>,
  fused: ReadonlyArray<A>
): Array<A> => {
  const firsts = new Map(leads.flatMap((list) => (list[0] === undefined ? [] : [[list[0].id, list[0]] as const])))
  return [...firsts.values(), ...fused.filter((item) => !firsts.has(item.id))]
}
