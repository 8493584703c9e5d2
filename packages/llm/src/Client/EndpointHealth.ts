import type { LlmSettingsData } from "../LlmSettings.js"
import type { Discovered, EndpointState } from "./Endpoint.js"
import type { PoolHealth } from "./PoolHealth.js"
import type { Waiters } from "./Waiters.js"

/** How a finished attempt reflects on an endpoint. */
export type Outcome =
  /** With when the request was sent and its output tokens, when known: the latency gradient's samples. */
  | { readonly _tag: "Success"; readonly sentAt?: number | undefined; readonly outputTokens?: number | undefined }
  /** Transport error, timeout, unreadable reply, 5xx other than 503/529: counts towards ejection. */
  | { readonly _tag: "Failure"; readonly message: string }
  /** 429/503/529: back-pressure; never ejects, pauses the endpoint after `ejectAfter` in a row. */
  | { readonly _tag: "Overload"; readonly message: string; readonly retryAfterMs: number | undefined }
  /** Says nothing about the endpoint (a 4xx, an interrupted call). */
  | { readonly _tag: "Neutral" }

export type HealthLog = (level: "warning" | "info" | "debug", message: string) => void

/** The size of an endpoint's limit when the server reports its batch size: see `withHeadroom`. */
export type Sizing = (e: EndpointState, found: Discovered) => void

/**
 * The state machine of each endpoint's condition (up, overloaded, down), driven by attempt outcomes and probes.
 * Every change of condition re-evaluates the pool's state and wakes waiting calls.
 */
export const makeEndpointHealth = (
  settings: LlmSettingsData,
  pool: PoolHealth,
  waiters: Waiters,
  log: HealthLog,
  sizing: Sizing
) => {
  const changed = (e: EndpointState, before: EndpointState["condition"], now: number) => {
    if (e.condition === before) return
    e.conditionSince = now
    if (e.condition === "up") e.lastError = undefined
    pool.update(now)
    waiters.dispatch(now)
  }

  const pause = (e: EndpointState, now: number, retryAfterMs: number | undefined) => {
    const backoff = settings.backoffBaseMs * 2 ** Math.min(e.pauseLevel, 20)
    e.pausedUntil = now + Math.min(settings.cooldownMaxMs, Math.max(retryAfterMs ?? 0, backoff))
  }

  const eject = (e: EndpointState, now: number) => {
    e.health = "ejected"
    e.ejectedUntil = now + e.cooldownMs
    e.ejections++
    log("warning", `LLM endpoint ${e.url} ejected after ${e.consecutiveFailures} failures in a row: ${e.lastError}`)
  }

  const record = (e: EndpointState, outcome: Outcome, now: number) => {
    const before = e.condition
    switch (outcome._tag) {
      case "Success":
        e.consecutiveFailures = 0
        e.consecutiveOverloads = 0
        e.pauseLevel = 0
        if (e.adaptive !== undefined && outcome.sentAt !== undefined && outcome.outputTokens !== undefined) {
          e.adaptive.latency(now - outcome.sentAt, outcome.outputTokens)
        }
        break
      case "Failure":
        e.consecutiveFailures++
        e.lastError = outcome.message
        if (e.health === "healthy" && e.consecutiveFailures >= settings.ejectAfter) eject(e, now)
        break
      case "Overload":
        e.lastError = outcome.message
        if (e.adaptive !== undefined) {
          const change = e.adaptive.overload(now)
          if (change !== undefined) e.limit = change.to
        }
        if (e.condition === "overloaded") {
          // an answer to a call sent after the pause (a trial) extends it; earlier calls' answers say nothing new
          if (now >= e.pausedUntil) {
            e.pauseLevel++
            pause(e, now, outcome.retryAfterMs)
          }
        } else if (++e.consecutiveOverloads >= e.overloadAfter) {
          e.pauseLevel = 0
          pause(e, now, outcome.retryAfterMs)
        }
        break
      case "Neutral":
        break
    }
    changed(e, before, now)
  }

  const probeDue = (e: EndpointState, now: number) =>
    e.health === "ejected" ? now >= e.ejectedUntil : now >= e.nextProbeAt

  /** Applies a probe's result; true when it brought an ejected endpoint back. */
  const probed = (e: EndpointState, ok: boolean, now: number): boolean => {
    const before = e.condition
    if (e.health === "ejected") {
      if (ok) {
        e.health = "healthy"
        e.consecutiveFailures = 0
        e.consecutiveOverloads = 0
        e.pauseLevel = 0
        e.cooldownMs = e.baseCooldownMs
        e.nextProbeAt = now + settings.healthIntervalMs
        log("info", `LLM endpoint ${e.url} recovered`)
      } else {
        e.cooldownMs = Math.min(e.cooldownMs * 2, Math.max(e.baseCooldownMs, settings.cooldownMaxMs))
        e.ejectedUntil = now + e.cooldownMs
      }
      changed(e, before, now)
      return ok
    }
    e.nextProbeAt = now + settings.healthIntervalMs
    if (!ok) record(e, { _tag: "Failure", message: "health check failed" }, now)
    else if (e.condition === "overloaded" && now >= e.pausedUntil && e.inFlight === 0) {
      // nobody has tried it since its pause ended: a healthy probe says it is worth trying again
      e.consecutiveOverloads = 0
      e.pauseLevel = 0
      changed(e, before, now)
    }
    return false
  }

  const discovered = (e: EndpointState, found: Discovered) => {
    e.models = found.models
    e.maxModelLen = found.maxModelLen
    e.maxNumSeqs = found.maxNumSeqs
    sizing(e, found)
  }

  return { record, probeDue, probed, discovered }
}
