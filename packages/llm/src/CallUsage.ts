import { type Role, setFiberRefAround } from "@deepnote-rag/core"
import { Effect, Exit, FiberRef } from "effect"

/** One finished LLM call (all its attempts) as the caller's collector sees it. */
export interface CallUsage {
  readonly role: Role
  /** The model that answered (the server's name for it; the cached reply's for a cache hit). */
  readonly model: string
  /** The endpoint that answered (`cache` for a cache hit, `none` when the call failed before reaching one). */
  readonly endpoint: string
  readonly promptTokens: number
  readonly completionTokens: number
  /** Prompt tokens the server served from its prefix cache. */
  readonly cachedPromptTokens: number
  readonly cached: boolean
  readonly ok: boolean
  readonly attempts: number
  readonly latencyMs: number
}

/** Collects the usage of the calls made while it is installed (`collectCallUsage`). */
export class UsageCollector {
  private readonly list: Array<CallUsage> = []

  add(usage: CallUsage): void {
    this.list.push(usage)
  }

  get calls(): ReadonlyArray<CallUsage> {
    return this.list
  }
}

/** The collector of the current fiber (none by default: calls then only reach the process's `UsageLedger`). */
export const currentUsageCollector: FiberRef.FiberRef<UsageCollector | undefined> = FiberRef.unsafeMake<
  UsageCollector | undefined
>(undefined)

/**
 * Runs `self` with a fresh collector and returns its value with the usage of every LLM call it made (calls in fibers
 * it forks included). Usage travels with the call: nothing global is read or diffed, nothing outlives `self`.
 */
export const collectCallUsage = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<readonly [A, ReadonlyArray<CallUsage>], E, R> =>
  // `Effect.locally(self, currentUsageCollector, collector)` in fewer run-loop steps (it runs once per LLM call)
  Effect.uninterruptibleMask((restore) =>
    Effect.withFiberRuntime((fiber) => {
      const collector = new UsageCollector()
      return setFiberRefAround(
        currentUsageCollector,
        collector,
        fiber.getFiberRef(currentUsageCollector),
        restore(self),
        (exit) => Exit.map(exit, (a) => [a, collector.calls] as const)
      )
    })
  )

/** The totals of some calls, tokens only from calls the servers answered (cache hits cost none). */
export const sumCallUsage = (calls: ReadonlyArray<CallUsage>) => {
  const served = calls.filter((c) => c.ok && !c.cached)
  const unique = (values: ReadonlyArray<string>) => [...new Set(values)].join(",")
  return {
    promptTokens: served.reduce((n, c) => n + c.promptTokens, 0),
    completionTokens: served.reduce((n, c) => n + c.completionTokens, 0),
    cachedPromptTokens: served.reduce((n, c) => n + c.cachedPromptTokens, 0),
    models: unique(calls.filter((c) => c.ok).map((c) => c.model)),
    endpoints: unique(calls.filter((c) => c.ok).map((c) => c.endpoint))
  }
}
