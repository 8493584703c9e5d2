import type { Role } from "@deepnote-rag/core"
import { Context, Effect, Layer } from "effect"

/** One finished call (after all its attempts), as the ledger sees it. */
export interface UsageEntry {
  readonly role: Role
  /** The model asked for (a bounded set: the configured and served ones). */
  readonly model?: string | undefined
  readonly promptTokens: number
  readonly completionTokens: number
  /** Prompt tokens the server served from its prefix cache (0 when it does not say). */
  readonly cachedPromptTokens?: number | undefined
  readonly latencyMs: number
  readonly attempts: number
  readonly cached: boolean
  readonly ok: boolean
}

export interface UsageTotals {
  /** Calls answered (by the server or the cache) or failed for good. */
  readonly calls: number
  readonly cachedCalls: number
  readonly failedCalls: number
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of `promptTokens`, those the servers reported as served from their prefix cache. */
  readonly cachedPromptTokens: number
  /** HTTP attempts, including retries (cache hits make none). */
  readonly attempts: number
  readonly latencyMs: number
  readonly maxLatencyMs: number
  /** Replies a role could not read (judge/planner/answer format). */
  readonly parseFailures: number
  /** Calls retried without structured-output parameters because the server rejected them. */
  readonly structuredFallbacks: number
}

/**
 * Bounded aggregates only: roles and models are a handful. Per-question and per-run usage travels with the calls
 * instead (`collectCallUsage`), so a long-running server's ledger never grows with the questions it answers.
 */
export interface UsageSnapshot {
  readonly total: UsageTotals
  readonly byRole: Readonly<Record<string, UsageTotals>>
  readonly byModel: Readonly<Record<string, UsageTotals>>
}

const zero = (): Mutable => ({
  calls: 0,
  cachedCalls: 0,
  failedCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  cachedPromptTokens: 0,
  attempts: 0,
  latencyMs: 0,
  maxLatencyMs: 0,
  parseFailures: 0,
  structuredFallbacks: 0
})
type Mutable = { -readonly [K in keyof UsageTotals]: UsageTotals[K] }

const add = (t: Mutable, e: UsageEntry) => {
  t.calls++
  if (e.cached) t.cachedCalls++
  if (!e.ok) t.failedCalls++
  if (!e.cached) {
    t.promptTokens += e.promptTokens
    t.completionTokens += e.completionTokens
    t.cachedPromptTokens += e.cachedPromptTokens ?? 0
  }
  t.attempts += e.attempts
  t.latencyMs += e.latencyMs
  t.maxLatencyMs = Math.max(t.maxLatencyMs, e.latencyMs)
}

export interface LedgerTags {
  readonly role: Role
}

/**
 * Prompt and completion tokens, latency and attempts in total, per role and per model; in memory. No spans: it is
 * updated on every call's hot path, in memory, and never fails (the call's own span carries the same numbers).
 */
export interface UsageLedgerService {
  readonly record: (entry: UsageEntry) => Effect.Effect<void>
  readonly parseFailure: (tags: LedgerTags) => Effect.Effect<void>
  readonly structuredFallback: (tags: LedgerTags) => Effect.Effect<void>
  readonly snapshot: Effect.Effect<UsageSnapshot>
}

const makeLedger = (): UsageLedgerService => {
  const total = zero()
  const byRole = new Map<string, Mutable>()
  const byModel = new Map<string, Mutable>()
  const at = (m: Map<string, Mutable>, k: string) => {
    let t = m.get(k)
    if (t === undefined) m.set(k, t = zero())
    return t
  }
  const buckets = (tags: LedgerTags & { readonly model?: string | undefined }): Array<Mutable> =>
    tags.model === undefined ? [total, at(byRole, tags.role)] : [total, at(byRole, tags.role), at(byModel, tags.model)]
  const freeze = (m: Map<string, Mutable>) => Object.fromEntries([...m].map(([k, v]) => [k, { ...v }]))
  return UsageLedger.of({
    record: (entry) => Effect.sync(() => buckets(entry).forEach((t) => add(t, entry))),
    parseFailure: (tags) => Effect.sync(() => buckets(tags).forEach((t) => t.parseFailures++)),
    structuredFallback: (tags) => Effect.sync(() => buckets(tags).forEach((t) => t.structuredFallbacks++)),
    snapshot: Effect.sync(() => ({ total: { ...total }, byRole: freeze(byRole), byModel: freeze(byModel) }))
  })
}

/** The usage ledger of one process (or one test). */
export class UsageLedger extends Context.Tag("@deepnote-rag/llm/UsageLedger")<UsageLedger, UsageLedgerService>() {
  static readonly make: Effect.Effect<UsageLedgerService> = Effect.sync(makeLedger)

  static readonly layer = Layer.effect(UsageLedger, UsageLedger.make)
}
