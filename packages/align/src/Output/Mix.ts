import { type AlignMix, type AlignRole, alignRoles, type MixQuotas, paperMix, seededRandom } from "@deepnote-rag/core"
import { hash32 } from "../Sampling/Hash.js"

/** Pairs per role. */
export type RoleCounts = Readonly<Record<AlignRole, number>>

export const noPairs: RoleCounts = { init: 0, plan: 0, update: 0, answer: 0 }

/** The quotas a mix asks for (`undefined`: every pair). */
export const quotasOf = (mix: AlignMix): MixQuotas | undefined =>
  mix === "all" ? undefined : mix === "paper" ? paperMix : mix

/**
 * How many pairs of each role the output keeps: every pair without quotas; with quotas, the quotas scaled down by one
 * factor for all roles (so the ratios hold) until each role has enough pairs, rounded down. A role with no pair at
 * all leaves the mix instead of emptying it; a role without a quota keeps none.
 */
export const mixCounts = (available: RoleCounts, mix: AlignMix): RoleCounts => {
  const quotas = quotasOf(mix)
  if (quotas === undefined) return available
  const mixed = alignRoles.filter((r) => (quotas[r] ?? 0) > 0 && available[r] > 0)
  const scale = Math.min(1, ...mixed.map((r) => available[r] / quotas[r]!))
  const counts: Record<AlignRole, number> = { ...noPairs }
  for (const role of mixed) counts[role] = Math.floor(quotas[role]! * scale)
  return counts
}

/**
 * Which of a role's pairs (numbered 0… in output order) the mix keeps: `count` of `available`, drawn by the seed (a
 * seeded Fisher–Yates shuffle), so the same run and seed always keep the same pairs.
 */
export const keptPairs = (role: AlignRole, available: number, count: number, seed: number): ReadonlySet<number> => {
  if (count >= available) return new Set(Array.from({ length: available }, (_, i) => i))
  const random = seededRandom(hash32(`${seed}\u0000mix\u0000${role}`))
  const order = Array.from({ length: available }, (_, i) => i)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  return new Set(order.slice(0, count))
}
