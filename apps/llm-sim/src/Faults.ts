import { seededRandom } from "@deepnote/core"
import type { FaultKind } from "./SimOptions.js"

/**
 * Decides each request's fault (generation and pooling): first from the `failNext` script (tests), then by rate and
 * seed.
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
