import type { EndpointState, EndpointStatus } from "./Endpoint.js"

/** `ok`: every endpoint is up; `degraded`: some are down or overloaded; `outage`: none is up. */
export type PoolState = "ok" | "degraded" | "outage"

/** The pool's health, for callers (`LlmClient.health`): progress displays, readiness probes. */
export interface LlmHealth {
  readonly state: PoolState
  /** When the pool entered this state. */
  readonly since: Date
  readonly endpoints: ReadonlyArray<EndpointStatus>
}

/** A change of the pool's state, with how long the previous one lasted. */
export interface HealthChange {
  readonly previous: PoolState
  readonly next: PoolState
  readonly at: number
  readonly previousLastedMs: number
}

/** One line per endpoint that is not up: `http://a (down: connection refused)`. */
export const describeEndpoints = (endpoints: ReadonlyArray<EndpointState>): string =>
  endpoints.map((e) => `${e.url} (${e.condition}${e.lastError === undefined ? "" : `: ${e.lastError}`})`).join(", ")

/**
 * The pool's state and its outage clock. `clock(now)` is the total time the pool has spent in outage so far: a call
 * waiting for an endpoint measures its own outage wait as the difference of two readings, so time spent merely
 * waiting for a free slot on a busy but healthy server never counts against the outage tolerance.
 */
export class PoolHealth {
  state: PoolState = "ok"
  since: number
  private outageStartedAt: number | undefined = undefined
  private outageTotalMs = 0

  constructor(
    private readonly endpoints: ReadonlyArray<EndpointState>,
    now: number,
    private readonly onChange: (change: HealthChange) => void
  ) {
    this.since = now
    for (const e of endpoints) e.conditionSince = now
  }

  /** Re-evaluates the state after an endpoint changed; reports a change once. */
  update(now: number): void {
    const up = this.endpoints.reduce((n, e) => n + (e.condition === "up" ? 1 : 0), 0)
    const next: PoolState = up === this.endpoints.length ? "ok" : up > 0 ? "degraded" : "outage"
    if (next === this.state) return
    const previous = this.state
    if (next === "outage") this.outageStartedAt = now
    if (previous === "outage" && this.outageStartedAt !== undefined) {
      this.outageTotalMs += now - this.outageStartedAt
      this.outageStartedAt = undefined
    }
    const previousLastedMs = now - this.since
    this.state = next
    this.since = now
    this.onChange({ previous, next, at: now, previousLastedMs })
  }

  clock(now: number): number {
    return this.outageTotalMs + (this.outageStartedAt === undefined ? 0 : now - this.outageStartedAt)
  }
}
