import type { Role } from "@deepnote/core"
import { Context, Effect, Layer } from "effect"

/** One finished call (after all its attempts), as the ledger sees it. */
export interface UsageEntry {
  readonly role: Role
  readonly questionId?: string | undefined
  readonly runId?: string | undefined
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

export interface UsageSnapshot {
  readonly total: UsageTotals
  readonly byRole: Readonly<Record<string, UsageTotals>>
  readonly byQuestion: Readonly<Record<string, UsageTotals>>
  readonly byRun: Readonly<Record<string, UsageTotals>>
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
  readonly questionId?: string | undefined
  readonly runId?: string | undefined
}

/**
 * Prompt and completion tokens, latency and attempts per role, per question and per run; in memory. No spans: it is
 * updated on every call's hot path, in memory, and never fails (the call's own span carries the same numbers).
 */
export interface UsageLedgerService {
  readonly record: (entry: UsageEntry) => Effect.Effect<void>
  readonly parseFailure: (tags: LedgerTags) => Effect.Effect<void>
  readonly structuredFallback: (tags: LedgerTags) => Effect.Effect<void>
  readonly snapshot: Effect.Effect<UsageSnapshot>
  /** One question's totals within one run (cheap: no snapshot of the whole ledger). */
  readonly question: (runId: string | undefined, questionId: string) => Effect.Effect<UsageTotals | undefined>
}

const makeLedger = (): UsageLedgerService => {
  const total = zero()
  const byRole = new Map<string, Mutable>()
  const byQuestion = new Map<string, Mutable>()
  const byRun = new Map<string, Mutable>()
  // One question of one run (question ids repeat across runs of the same dataset); read by `question`.
  const byRunQuestion = new Map<string, Mutable>()
  const runQuestionKey = (runId: string | undefined, questionId: string) => `${runId ?? ""}\u0000${questionId}`
  const buckets = (tags: LedgerTags): Array<Mutable> => {
    const at = (m: Map<string, Mutable>, k: string) => {
      let t = m.get(k)
      if (t === undefined) m.set(k, t = zero())
      return t
    }
    const out = [total, at(byRole, tags.role)]
    if (tags.questionId !== undefined) {
      out.push(at(byQuestion, tags.questionId))
      out.push(at(byRunQuestion, runQuestionKey(tags.runId, tags.questionId)))
    }
    if (tags.runId !== undefined) out.push(at(byRun, tags.runId))
    return out
  }
  const freeze = (m: Map<string, Mutable>) => Object.fromEntries([...m].map(([k, v]) => [k, { ...v }]))
  return UsageLedger.of({
    record: (entry) => Effect.sync(() => buckets(entry).forEach((t) => add(t, entry))),
    parseFailure: (tags) => Effect.sync(() => buckets(tags).forEach((t) => t.parseFailures++)),
    structuredFallback: (tags) => Effect.sync(() => buckets(tags).forEach((t) => t.structuredFallbacks++)),
    snapshot: Effect.sync(() => ({
      total: { ...total },
      byRole: freeze(byRole),
      byQuestion: freeze(byQuestion),
      byRun: freeze(byRun)
    })),
    question: (runId, questionId) =>
      Effect.sync(() => {
        const t = byRunQuestion.get(runQuestionKey(runId, questionId))
        return t === undefined ? undefined : { ...t }
      })
  })
}

/** The usage ledger of one process (or one test). */
export class UsageLedger extends Context.Tag("@deepnote/llm/UsageLedger")<UsageLedger, UsageLedgerService>() {
  static readonly make: Effect.Effect<UsageLedgerService> = Effect.sync(makeLedger)

  static readonly layer = Layer.effect(UsageLedger, UsageLedger.make)
}
