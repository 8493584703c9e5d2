/** Which entries a listing (`GET /v1/runs`, `GET /v1/sweeps`) shows, newest first: those after `before`, `limit` of them. */
export interface ListPage {
  readonly before?: string | undefined
  /** Default `defaultListLimit`. */
  readonly limit?: number | undefined
}

/** Which runs `GET /v1/runs` lists: a page, of the runs over one dataset when `dataset` (its hash) is given. */
export interface RunsPage extends ListPage {
  readonly dataset?: string | undefined
}

export const defaultListLimit = 100

/**
 * A page out of a listing read with one entry more than `limit`: its first `limit` entries, and the next page's cursor
 * (the last entry's id) only when that extra entry shows that older ones exist — so the last page has none.
 */
export const pageOf = <A>(
  listed: ReadonlyArray<A>,
  limit: number,
  idOf: (entry: A) => string
): { readonly entries: ReadonlyArray<A>; readonly nextBefore: string | undefined } => {
  const entries = listed.slice(0, limit)
  const last = entries.at(-1)
  return { entries, nextBefore: listed.length > limit && last !== undefined ? idOf(last) : undefined }
}
