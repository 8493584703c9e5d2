import {
  type AlignSpec,
  type CallContext,
  type Role,
  type RoleSampling,
  type SamplePoint,
  seededRandom
} from "@deepnote-rag/core"
import { Array as Arr } from "effect"
import { hash32 } from "./Hash.js"

/** One sample of a role: its number, its point of the grid and its seed. */
export interface SampleSlot {
  readonly sample: number
  readonly temperature: number
  readonly topP: number
  readonly seed: number
}

/**
 * The samples of every group: sample `i` takes grid point `i mod |grid|` and seed `seed + i`, so `--samples 9` over
 * the paper's 3 × 3 grid samples each point once, and more samples than points repeat points with new seeds.
 */
export const sampleSlots = (spec: Pick<AlignSpec, "samples" | "grid" | "seed">): ReadonlyArray<SampleSlot> =>
  Array.from({ length: spec.samples }, (_, i) => {
    const point: SamplePoint = spec.grid[i % spec.grid.length]!
    return { sample: i, temperature: point.temperature, topP: point.topP, seed: spec.seed + i }
  })

/** The grid of every combination of the values given (`temperature=0.1,0.5,0.9 top_p=0.1,0.5,0.9`: 9 points). */
export const gridOf = (
  temperatures: Arr.NonEmptyReadonlyArray<number>,
  topPs: Arr.NonEmptyReadonlyArray<number>
): Arr.NonEmptyArray<SamplePoint> =>
  Arr.flatMap(temperatures, (temperature) => Arr.map(topPs, (topP) => ({ temperature, topP })))

/** The paper's grid: temperature and top_p each in {0.1, 0.5, 0.9}. */
export const paperGrid: Arr.NonEmptyReadonlyArray<SamplePoint> = gridOf([0.1, 0.5, 0.9], [0.1, 0.5, 0.9])

/** A deterministic draw in [0, 1) for one question and purpose, from the run's seed. */
export const drawFor = (seed: number, questionId: string, purpose: string): number =>
  seededRandom(hash32(`${seed}\u0000${questionId}\u0000${purpose}`))()

/** The question's top-k, drawn uniformly from the range by seed (the reference draws k ∈ [3, 9] per question). */
export const topKFor = (spec: Pick<AlignSpec, "topK" | "seed">, questionId: string): number =>
  spec.topK.min + Math.floor(drawFor(spec.seed, questionId, "top-k") * (spec.topK.max - spec.topK.min + 1))

/** The call context of a sample: the role's sampling replaced by the slot's temperature, top_p and seed. */
export const contextAt = (base: CallContext, role: Role, slot: SampleSlot): CallContext => {
  const own: RoleSampling = base.config.roles[role] ?? {}
  return {
    ...base,
    config: {
      ...base.config,
      roles: {
        ...base.config.roles,
        [role]: { ...own, temperature: slot.temperature, topP: slot.topP, seed: slot.seed }
      }
    }
  }
}
