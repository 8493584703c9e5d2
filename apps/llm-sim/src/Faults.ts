import type { FaultKind } from "./SimOptions.js"

/** mulberry32: a tiny seeded PRNG, so a fault pattern repeats for the same seed and arrival order. */
export const seededRandom = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Decides each generation request's fault: first from the `failNext` script (tests), then by rate and seed.
 * `down` makes every request (and `/health`) answer 503 until `up`.
 */
export class FaultInjector {
  private readonly random: () => number
  private readonly script: Array<FaultKind> = []
  down = false

  constructor(readonly rate: number, seed: number, readonly kinds: ReadonlyArray<FaultKind>) {
    this.random = seededRandom(seed)
  }

  /** The next requests get these faults, in order. */
  failNext(kinds: ReadonlyArray<FaultKind>) {
    this.script.push(...kinds)
  }

  next(): FaultKind | undefined {
    if (this.down) return "503"
    const scripted = this.script.shift()
    if (scripted !== undefined) return scripted
    if (this.rate <= 0 || this.kinds.length === 0) return undefined
    if (this.random() >= this.rate) return undefined
    return this.kinds[Math.floor(this.random() * this.kinds.length)]
  }
}
