import { withoutCredentials } from "@deepnote-rag/core"
import type { AdaptiveLimit } from "./AdaptiveLimit.js"

/** Which way of asking for structured output an endpoint has accepted (or rejected) so far. */
export type StructuredSupport = "structured_outputs" | "response_format" | "guided" | "none"

/** `ejected`: taken out after failures (transport, timeouts, 5xx other than 503/529) until a probe succeeds. */
export type EndpointHealth = "healthy" | "ejected"

/**
 * How usable an endpoint is now: `up`; `overloaded` (its last answers were 429/503/529 — back-pressure: never ejected,
 * paused, then tried with one call at a time until one succeeds); `down` (ejected).
 */
export type EndpointCondition = "up" | "overloaded" | "down"

/**
 * What an endpoint's requests send as `Authorization`: `Basic …` for a URL that names a user
 * (`http://user:password@host`, percent-encoded as URLs have them, sent as curl and browsers send it), else the API
 * key's `Bearer …`, else nothing.
 */
export const endpointAuthorization = (address: string, apiKey: string | undefined): string | undefined => {
  const { username, password } = URL.canParse(address) ? new URL(address) : { username: "", password: "" }
  if (username === "" && password === "") return apiKey === undefined ? undefined : `Bearer ${apiKey}`
  const plain = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`
  return `Basic ${Buffer.from(plain, "utf8").toString("base64")}`
}

/** Live state of one server. Mutated only by the pool and the client, from the single JS thread. */
export class EndpointState {
  inFlight = 0
  consecutiveFailures = 0
  /** Overload answers (429/503/529) since the last success. */
  consecutiveOverloads = 0
  health: EndpointHealth = "healthy"
  ejectedUntil = 0
  /** While overloaded, no call is sent before this time (epoch ms): Retry-After or a capped backoff. */
  pausedUntil = 0
  /** Pauses in a row while overloaded (each doubles the next). */
  pauseLevel = 0
  /** When a healthy endpoint is next probed (epoch ms). */
  nextProbeAt = 0
  cooldownMs: number
  ejections = 0
  requests = 0
  models: ReadonlyArray<string> | undefined = undefined
  maxModelLen: number | undefined = undefined
  /** The server's own batch size when it reports it (`/v1/models` of the simulator). */
  maxNumSeqs: number | undefined = undefined
  /** The last failure or overload answer, for health reports and outage messages. */
  lastError: string | undefined = undefined
  /** When the current condition began (epoch ms). */
  conditionSince = 0
  /** The adaptive limit's controller (absent when the limit is fixed: `url#N`, `perEndpointConcurrency`). */
  adaptive: AdaptiveLimit | undefined = undefined
  /** When `/metrics` last gave a reading (epoch ms); readings older than 2 s are stale. */
  loadAt = 0
  /** The server has no vLLM `/metrics` (the latency gradient steers its limit). */
  metricsMissing = false
  /** Whether to send vLLM's `priority` field (cleared when the server refuses it under fcfs). */
  sendPriority = true
  /** The next way to try structured outputs; moves down the chain on a 400 that names the parameter. */
  structured: StructuredSupport
  /**
   * The base URL requests go to, and as logs, errors, metrics, spans and manifests show it: without a user name or
   * password.
   */
  readonly url: string
  /** Headers every request to it carries (calls, discovery, probes, `/metrics`): its `endpointAuthorization`. */
  readonly headers: Readonly<Record<string, string>>

  constructor(
    readonly index: number,
    /** The configured URL, credentials included. */
    address: string,
    public limit: number,
    readonly limitFixed: boolean,
    readonly baseCooldownMs: number,
    structured: StructuredSupport,
    /** Consecutive overload answers after which the endpoint counts as overloaded. */
    readonly overloadAfter = 3,
    /** The API key, sent as a bearer token unless the URL names a user. */
    apiKey?: string
  ) {
    this.cooldownMs = baseCooldownMs
    this.structured = structured
    this.url = withoutCredentials(address)
    const authorization = endpointAuthorization(address, apiKey)
    this.headers = authorization === undefined ? {} : { authorization }
  }

  get condition(): EndpointCondition {
    return this.health === "ejected" ? "down" : this.consecutiveOverloads >= this.overloadAfter ? "overloaded" : "up"
  }

  /** The calls it may have in flight now: its limit, one trial call while overloaded (after its pause), none when down. */
  capacity(now: number): number {
    switch (this.condition) {
      case "down":
        return 0
      case "overloaded":
        return now >= this.pausedUntil ? 1 : 0
      case "up":
        return Math.max(1, Math.floor(this.limit))
    }
  }

  available(now: number): boolean {
    return this.inFlight < this.capacity(now)
  }

  /** Whether it serves `model` (unknown models — discovery has not answered — count as yes). */
  serves(model: string | undefined): boolean {
    return model === undefined || this.models === undefined || this.models.includes(model)
  }

  get load(): number {
    return this.inFlight / Math.max(1, this.limit)
  }
}

/** A read-only view for tests, logs, health reports and the CLI's status output. */
export interface EndpointStatus {
  readonly url: string
  readonly health: EndpointHealth
  readonly condition: EndpointCondition
  /** When the current condition began. */
  readonly since: Date
  readonly lastError: string | undefined
  readonly inFlight: number
  readonly limit: number
  readonly requests: number
  readonly ejections: number
  readonly consecutiveFailures: number
  readonly models: ReadonlyArray<string>
  readonly maxModelLen: number | undefined
  /** The server's batch size when it reports it (`max_num_seqs` in `/v1/models`). */
  readonly maxNumSeqs: number | undefined
  /** The limit was configured (`url#N`, `perEndpointConcurrency`), not found or adapted. */
  readonly limitFixed: boolean
  readonly structured: StructuredSupport
}

export const statusOf = (e: EndpointState): EndpointStatus => ({
  url: e.url,
  health: e.health,
  condition: e.condition,
  since: new Date(e.conditionSince),
  lastError: e.lastError,
  inFlight: e.inFlight,
  limit: Math.max(1, Math.floor(e.limit)),
  requests: e.requests,
  ejections: e.ejections,
  consecutiveFailures: e.consecutiveFailures,
  models: e.models ?? [],
  maxModelLen: e.maxModelLen,
  maxNumSeqs: e.maxNumSeqs,
  limitFixed: e.limitFixed,
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

/** The endpoint a key prefers among the healthy ones serving `model` (highest random weight): stable while the set is. */
export const preferredFor = (
  key: string,
  endpoints: ReadonlyArray<EndpointState>,
  model?: string
): EndpointState | undefined => {
  let best: EndpointState | undefined
  let bestScore = -1
  for (const e of endpoints) {
    if (e.health !== "healthy" || !e.serves(model)) continue
    const score = fnv1a(`${key}|${e.url}`)
    if (score > bestScore) {
      best = e
      bestScore = score
    }
  }
  return best
}

/** What a call asks of the router. */
export interface Route {
  readonly key: string | undefined
  readonly avoid?: EndpointState | undefined
  readonly model?: string | undefined
  /** vLLM's priority of the call (lower first): waiting calls are served in (priority, arrival) order. */
  readonly priority?: number | undefined
}

/**
 * Routing among the endpoints serving the call's model: the key's preferred endpoint if it has a free slot (keeps a
 * question's prompt prefix on one server's cache), else the least-loaded endpoint with a free slot, skipping `avoid`
 * (the endpoint that just failed) when another is free.
 */
export const choose = (
  endpoints: ReadonlyArray<EndpointState>,
  route: Route,
  now: number
): EndpointState | undefined => {
  const { avoid, key, model } = route
  if (key !== undefined) {
    const preferred = preferredFor(key, endpoints, model)
    if (preferred !== undefined && preferred.available(now) && preferred !== avoid) return preferred
  }
  let best: EndpointState | undefined
  for (const e of endpoints) {
    if (!e.serves(model) || !e.available(now)) continue
    if (best === undefined || (best === avoid && e !== avoid) || (e !== avoid && e.load < best.load)) best = e
  }
  return best
}

/** What `/v1/models` says about one endpoint. */
export interface Discovered {
  readonly models: ReadonlyArray<string>
  readonly maxModelLen: number | undefined
  readonly maxNumSeqs: number | undefined
}
