import { Effect, FiberRef } from "effect"
import type { LlmSettingsData, WorkClass } from "./LlmSettings.js"

/**
 * How the calls made inside an effect are treated, for an engine shared by interactive and batch work (the HTTP
 * server's): set it around a request or a run with `LlmCallPolicy.locally`. Every field is optional; an absent one
 * comes from the settings (`workClass`, then the class's tolerance and priority).
 */
export interface LlmCallPolicy {
  /** Interactive (ask, `/v1/ask`, chat) or batch (runs, sweeps, workers). */
  readonly workClass?: WorkClass | undefined
  /** Overrides the class's outage tolerance (ms). */
  readonly outageToleranceMs?: number | undefined
  /** Overrides the class's vLLM `priority` (lower is served sooner). */
  readonly priority?: number | undefined
  /** Sent as `x-deepnote-fairness-key` (a tenant or run), for gateways that share servers fairly between flows. */
  readonly fairnessKey?: string | undefined
}

/** The policy of the current fiber (empty: everything from the settings). */
export const currentLlmCallPolicy: FiberRef.FiberRef<LlmCallPolicy> = FiberRef.unsafeMake<LlmCallPolicy>({})

/** Runs `self` with `policy` over the current one (fields it leaves out are kept). */
export const locally = (policy: LlmCallPolicy) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locallyWith(self, currentLlmCallPolicy, (current) => ({ ...current, ...definedOnly(policy) }))

/** Interactive work: the short outage tolerance and the interactive priority. */
export const interactive = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  locally({ workClass: "interactive" })(self)

/** Batch work: the long outage tolerance and the batch priority. */
export const batch = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  locally({ workClass: "batch" })(self)

const definedOnly = (policy: LlmCallPolicy): LlmCallPolicy =>
  Object.fromEntries(Object.entries(policy).filter(([, v]) => v !== undefined))

/** The effective policy of one call: the fiber's over the settings'. */
export interface ResolvedCallPolicy {
  readonly workClass: WorkClass
  readonly outageToleranceMs: number
  readonly priority: number
  readonly fairnessKey: string | undefined
}

export const resolve = (settings: LlmSettingsData, policy: LlmCallPolicy): ResolvedCallPolicy => {
  const workClass = policy.workClass ?? settings.workClass
  return {
    workClass,
    outageToleranceMs: policy.outageToleranceMs ??
      (workClass === "interactive" ? settings.interactiveOutageToleranceMs : settings.outageToleranceMs),
    priority: policy.priority ?? (workClass === "interactive" ? settings.interactivePriority : settings.batchPriority),
    fairnessKey: policy.fairnessKey
  }
}
