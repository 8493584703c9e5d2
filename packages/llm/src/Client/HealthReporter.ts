import { Clock, Effect, Queue, type Scope, type Stream, SubscriptionRef } from "effect"
import type { LlmSettingsData } from "../LlmSettings.js"
import { type EndpointState, statusOf } from "./Endpoint.js"
import type { HealthLog } from "./EndpointHealth.js"
import { describeEndpoints, type HealthChange, type LlmHealth, PoolHealth } from "./PoolHealth.js"

type Note = HealthChange | {
  readonly _tag: "Log"
  readonly level: "warning" | "info" | "debug"
  readonly message: string
}

/** An outage shorter than this (a burst of overload answers from a single server) is not worth a warning. */
const outageLogAfterMs = 1000

export interface HealthReporter {
  readonly pool: PoolHealth
  /** Logs a line from synchronous code (ejections, recoveries). */
  readonly log: HealthLog
  /** Called on the pool's tick: warns once about an outage that has lasted `outageLogAfterMs`. */
  readonly tick: (now: number) => void
  readonly health: Effect.Effect<LlmHealth>
  readonly changes: Stream.Stream<LlmHealth>
}

/**
 * The pool's state and how it is told: one warning when an outage has lasted a second, one line when it ends, the
 * endpoints' ejections and recoveries, and every change of state published for `LlmClient.healthChanges`. State
 * changes happen in synchronous code on the hot path; they are queued and told by one fiber.
 */
export const makeHealthReporter = (
  settings: LlmSettingsData,
  endpoints: ReadonlyArray<EndpointState>
): Effect.Effect<HealthReporter, never, Scope.Scope> =>
  Effect.gen(function*() {
    const notes = yield* Queue.unbounded<Note>()
    const pool = new PoolHealth(endpoints, yield* Clock.currentTimeMillis, (c) => Queue.unsafeOffer(notes, c))
    const snapshot = (): LlmHealth => ({
      state: pool.state,
      since: new Date(pool.since),
      endpoints: endpoints.map(statusOf)
    })
    const ref = yield* SubscriptionRef.make(snapshot())
    const log: HealthLog = (level, message) => Queue.unsafeOffer(notes, { _tag: "Log", level, message })

    let outageLogged = false
    const tick = (now: number) => {
      if (pool.state !== "outage" || outageLogged || now - pool.since < outageLogAfterMs) return
      outageLogged = true
      log(
        "warning",
        `LLM servers unavailable: every endpoint is down or overloaded (${
          describeEndpoints(endpoints)
        }); calls wait for them to come back (outage tolerance ${settings.outageToleranceMs / 1000} s for batch work, ${
          settings.interactiveOutageToleranceMs / 1000
        } s for interactive work)`
      )
    }
    yield* Queue.take(notes).pipe(
      Effect.flatMap((c) => {
        if ("_tag" in c) {
          return c.level === "warning"
            ? Effect.logWarning(c.message)
            : c.level === "info"
            ? Effect.logInfo(c.message)
            : Effect.logDebug(c.message)
        }
        const ended = c.previous === "outage" && outageLogged
        if (c.previous === "outage") outageLogged = false
        return Effect.zipRight(
          ended
            ? Effect.logInfo(`LLM servers back after ${(c.previousLastedMs / 1000).toFixed(1)} s of outage`)
            : Effect.void,
          Effect.suspend(() => SubscriptionRef.set(ref, snapshot()))
        )
      }),
      Effect.forever,
      Effect.forkScoped
    )
    return { pool, log, tick, health: Effect.sync(snapshot), changes: ref.changes }
  })
