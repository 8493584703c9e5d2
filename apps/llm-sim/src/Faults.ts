import { seededRandom } from "@deepnote-rag/core"
import type { FaultKind } from "./SimOptions.js"

/** Load shedding: while `excess()` requests wait beyond the batch, new ones are refused with an overload answer. */
export interface Shedding {
  readonly atWaiting: number
  readonly excess: () => number
}

/** The fault kinds that mean "overloaded, come back later". */
const overloadKinds: ReadonlyArray<FaultKind> = ["429", "503", "529"]

/**
 * Decides each request's fault (generation and pooling): first from the `failNext` script (tests), then load shedding
 * (a server or gateway refusing work while its queue is long: an overload storm that clients can calm by sending
 * less), then by rate and seed.
 * `down` makes every request (and `/health`) answer 503 until `up`.
 */
export class FaultInjector {
  private readonly random: () => number
  private readonly script: Array<FaultKind> = []
  down = false

  private readonly shedKinds: ReadonlyArray<FaultKind>

  constructor(
    readonly rate: number,
    seed: number,
    readonly kinds: ReadonlyArray<FaultKind>,
    private readonly shedding?: Shedding
  ) {
    this.random = seededRandom(seed)
    const shedKinds = kinds.filter((k) => overloadKinds.includes(k))
    this.shedKinds = shedKinds.length > 0 ? shedKinds : ["429"]
  }

  /** The next requests get these faults, in order. */
  failNext(kinds: ReadonlyArray<FaultKind>) {
    this.script.push(...kinds)
  }

  next(): FaultKind | undefined {
    if (this.down) return "503"
    const scripted = this.script.shift()
    if (scripted !== undefined) return scripted
    if (this.shedding !== undefined && this.shedding.excess() >= this.shedding.atWaiting) {
      return this.shedKinds[Math.floor(this.random() * this.shedKinds.length)]
    }
    if (this.rate <= 0 || this.kinds.length === 0) return undefined
    if (this.random() >= this.rate) return undefined
    return this.kinds[Math.floor(this.random() * this.kinds.length)]
  }
}
