/** Which way of asking for structured output an endpoint has accepted (or rejected) so far. */
export type StructuredSupport = "structured_outputs" | "response_format" | "guided" | "none"

export type EndpointHealth = "healthy" | "ejected"

/** Live state of one server. Mutated only by the pool and the client, from the single JS thread. */
export class EndpointState {
  inFlight = 0
  consecutiveFailures = 0
  health: EndpointHealth = "healthy"
  ejectedUntil = 0
  cooldownMs: number
  ejections = 0
  requests = 0
  models: ReadonlyArray<string> | undefined = undefined
  maxModelLen: number | undefined = undefined
  /** The next way to try structured outputs; moves down the chain on a 400 that names the parameter. */
  structured: StructuredSupport

  constructor(
    readonly index: number,
    readonly url: string,
    public limit: number,
    readonly limitFixed: boolean,
    readonly baseCooldownMs: number,
    structured: StructuredSupport
  ) {
    this.cooldownMs = baseCooldownMs
    this.structured = structured
  }

  get available(): boolean {
    return this.health === "healthy" && this.inFlight < this.limit
  }

  get load(): number {
    return this.inFlight / this.limit
  }
}

/** A read-only view for tests, logs and the CLI's status output. */
export interface EndpointStatus {
  readonly url: string
  readonly health: EndpointHealth
  readonly inFlight: number
  readonly limit: number
  readonly requests: number
  readonly ejections: number
  readonly consecutiveFailures: number
  readonly models: ReadonlyArray<string>
  readonly structured: StructuredSupport
}

export const statusOf = (e: EndpointState): EndpointStatus => ({
  url: e.url,
  health: e.health,
  inFlight: e.inFlight,
  limit: e.limit,
  requests: e.requests,
  ejections: e.ejections,
  consecutiveFailures: e.consecutiveFailures,
  models: e.models ?? [],
  structured: e.structured
})

/** FNV-1a, for rendezvous hashing of sticky keys onto endpoints. */
const fnv1a = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** The endpoint a key prefers among the healthy ones (highest random weight): stable while the set is stable. */
export const preferredFor = (key: string, endpoints: ReadonlyArray<EndpointState>): EndpointState | undefined => {
  let best: EndpointState | undefined
  let bestScore = -1
  for (const e of endpoints) {
    if (e.health !== "healthy") continue
    const score = fnv1a(`${key}|${e.url}`)
    if (score > bestScore) {
      best = e
      bestScore = score
    }
  }
  return best
}

/**
 * Routing: the key's preferred endpoint if it has a free slot (keeps a question's prompt prefix on one server's
 * cache), else the least-loaded endpoint with a free slot, skipping `avoid` (the endpoint that just failed) when
 * another is free.
 */
export const choose = (
  endpoints: ReadonlyArray<EndpointState>,
  key: string | undefined,
  avoid: EndpointState | undefined
): EndpointState | undefined => {
  if (key !== undefined) {
    const preferred = preferredFor(key, endpoints)
    if (preferred !== undefined && preferred.available && preferred !== avoid) return preferred
  }
  let best: EndpointState | undefined
  for (const e of endpoints) {
    if (!e.available) continue
    if (best === undefined || (best === avoid && e !== avoid) || (e !== avoid && e.load < best.load)) best = e
  }
  return best
}
