import type { Comparison, ItemDetail, RunResults, RunView, SweepView } from "./Types.js"

const keyName = "deepnote.apiKey"

/** The API key the user typed (kept for this tab only), if any. */
export const apiKey = (): string | null => sessionStorage.getItem(keyName)
export const setApiKey = (key: string): void => sessionStorage.setItem(keyName, key)
export const clearApiKey = (): void => sessionStorage.removeItem(keyName)

/** The server asked for a key (401): the page shows the key form. */
export class NeedsKey extends Error {
  constructor() {
    super("this server needs an API key")
  }
}

/** Any other failure, with the API's own message when it sent one. */
export class ApiFailure extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

const headers = (): Record<string, string> => {
  const key = apiKey()
  return key === null ? { accept: "application/json" } : { accept: "application/json", authorization: `Bearer ${key}` }
}

const failure = async (response: Response): Promise<Error> => {
  if (response.status === 401) return new NeedsKey()
  const text = await response.text()
  try {
    const body = JSON.parse(text) as { error?: { message?: string } }
    return new ApiFailure(response.status, body.error?.message ?? text)
  } catch {
    return new ApiFailure(response.status, `${response.status} ${response.statusText}`)
  }
}

/** A same-origin GET returning the decoded JSON body. */
export const getJson = async <A>(path: string): Promise<A> => {
  const response = await fetch(path, { headers: headers() })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as A
}

const q = encodeURIComponent

/** The query of a page of a listing (`GET /v1/runs`, `GET /v1/sweeps`): `limit` entries after the entry `before`. */
const pageQuery = (limit: number, before: string | undefined) =>
  `limit=${limit}${before === undefined ? "" : `&before=${q(before)}`}`

/**
 * One page of the tenant's runs, newest first: `limit` runs before the run `before` (of those over the dataset with
 * the hash `dataset`, when given), and the next page's cursor.
 */
export const listRunsPage = (
  limit: number,
  before?: string,
  filter: { readonly dataset?: string } = {}
): Promise<{ readonly runs: ReadonlyArray<RunView>; readonly nextBefore?: string }> =>
  getJson(`/v1/runs?${pageQuery(limit, before)}${filter.dataset === undefined ? "" : `&dataset=${q(filter.dataset)}`}`)
export const getRun = (id: string) => getJson<RunView>(`/v1/runs/${q(id)}`)
/** One page of the sweeps the tenant sees, newest first (as `listRunsPage`). */
export const listSweepsPage = (
  limit: number,
  before?: string
): Promise<{ readonly sweeps: ReadonlyArray<SweepView>; readonly nextBefore?: string }> =>
  getJson(`/v1/sweeps?${pageQuery(limit, before)}`)
export const getSweep = (id: string) => getJson<SweepView>(`/v1/sweeps/${q(id)}`)
export const getItem = (runId: string, itemId: string) => getJson<ItemDetail>(`/v1/runs/${q(runId)}/items/${q(itemId)}`)
export const compareRuns = (base: string, candidate: string) =>
  getJson<Comparison>(`/v1/compare?base=${q(base)}&candidate=${q(candidate)}`)

/** Every item of a run (all pages) and the report of the first page; with `scores`, each item's scores. */
export const allResults = async (id: string, options: { readonly scores?: boolean } = {}): Promise<RunResults> => {
  const scores = options.scores === true ? "&scores=true" : ""
  const first = await getJson<RunResults>(`/v1/runs/${q(id)}/results?limit=1000${scores}`)
  const items = [...first.items]
  let after = first.nextAfter
  while (after !== undefined) {
    const page = await getJson<RunResults>(`/v1/runs/${q(id)}/results?limit=1000&after=${after}&report=false${scores}`)
    items.push(...page.items)
    after = page.nextAfter
  }
  return { ...first, items }
}

export interface SseMessage {
  readonly event: string
  readonly data: string
}

/**
 * Reads a run's event stream (server-sent events over fetch, so the Authorization header can be sent — EventSource
 * cannot send one). Calls `onMessage` per event until the stream ends or `signal` aborts.
 */
export const followEvents = async (
  id: string,
  onMessage: (message: SseMessage) => void,
  signal: AbortSignal
): Promise<void> => {
  const response = await fetch(`/v1/runs/${q(id)}/events`, {
    headers: { ...headers(), accept: "text/event-stream" },
    signal
  })
  if (!response.ok || response.body === null) throw await failure(response)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  while (true) {
    const { done, value } = await reader.read()
    if (done) return
    buffer += value
    let end = buffer.indexOf("\n\n")
    while (end >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let event = "message"
      const data: Array<string> = []
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim()
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart())
      }
      if (data.length > 0) onMessage({ event, data: data.join("\n") })
      end = buffer.indexOf("\n\n")
    }
  }
}
