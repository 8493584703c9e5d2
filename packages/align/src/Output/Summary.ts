import { type AlignItemResult, type AlignRole, alignRoles, type DropReason } from "@deepnote-rag/core"
import type { RoleCounts } from "./Mix.js"

/** One role's tally over a run's questions. */
export interface RoleSummary {
  readonly role: AlignRole
  /** Questions that reached the role (one outcome each). */
  readonly questions: number
  readonly pairs: number
  /** Questions without a pair, by reason. */
  readonly dropped: Readonly<Partial<Record<DropReason, number>>>
  readonly samples: number
  readonly distinct: number
  /** Where gold exists: pairs whose chosen side scores higher on the task metric, lower, or the same. */
  readonly agreement: { readonly agree: number; readonly disagree: number; readonly tie: number }
}

export interface AlignSummary {
  /** Questions with a result (done). */
  readonly questions: number
  readonly roles: ReadonlyArray<RoleSummary>
}

const emptyRole = (role: AlignRole): RoleSummary => ({
  role,
  questions: 0,
  pairs: 0,
  dropped: {},
  samples: 0,
  distinct: 0,
  agreement: { agree: 0, disagree: 0, tie: 0 }
})

export const emptySummary = (roles: ReadonlyArray<AlignRole>): AlignSummary => ({
  questions: 0,
  roles: alignRoles.filter((r) => roles.includes(r)).map(emptyRole)
})

/** Adds one question's result to the tally. */
export const addResult = (summary: AlignSummary, result: AlignItemResult): AlignSummary => ({
  questions: summary.questions + 1,
  roles: summary.roles.map((s) => {
    const outcome = result.outcomes.find((o) => o.role === s.role)
    if (outcome === undefined) return s
    return {
      ...s,
      questions: s.questions + 1,
      pairs: s.pairs + (outcome.pair === undefined ? 0 : 1),
      dropped: outcome.dropped === undefined ? s.dropped : {
        ...s.dropped,
        [outcome.dropped]: (s.dropped[outcome.dropped] ?? 0) + 1
      },
      samples: s.samples + outcome.samples,
      distinct: s.distinct + outcome.distinct,
      agreement: outcome.agreement === undefined
        ? s.agreement
        : { ...s.agreement, [outcome.agreement]: s.agreement[outcome.agreement] + 1 }
    }
  })
})

/** Pairs per role. */
export const pairCounts = (summary: AlignSummary): RoleCounts => {
  const counts: Record<AlignRole, number> = { init: 0, plan: 0, update: 0, answer: 0 }
  for (const s of summary.roles) counts[s.role] = s.pairs
  return counts
}

/** Questions without a pair. */
export const droppedTotal = (s: RoleSummary): number => Object.values(s.dropped).reduce((a, b) => a + (b ?? 0), 0)

/** Agreement of the judge with the metric, over the pairs where the metric tells the two sides apart. */
export const agreementRate = (s: RoleSummary): number | undefined => {
  const decisive = s.agreement.agree + s.agreement.disagree
  return decisive === 0 ? undefined : s.agreement.agree / decisive
}

/** One line per role: `init: 61 pairs of 84 questions (23 dropped: 20 judge-tie, 3 identical-samples) · judge … ` */
export const summaryLines = (summary: AlignSummary): Array<string> =>
  summary.roles.map((s) => {
    const dropped = Object.entries(s.dropped).map(([reason, n]) => `${n} ${reason}`).join(", ")
    const rate = agreementRate(s)
    const decisive = s.agreement.agree + s.agreement.disagree
    return `${s.role}: ${s.pairs} pairs of ${s.questions} questions (${droppedTotal(s)} dropped${
      dropped.length > 0 ? `: ${dropped}` : ""
    })${
      rate === undefined
        ? ""
        : ` · judge agrees with the metric on ${(100 * rate).toFixed(0)}% of ${decisive} decisive pairs`
    }`
  })
