import type { ContentEngine } from "./Content.js"
import type { FaultInjector } from "./Faults.js"
import type { PrefixCache } from "./PrefixCache.js"
import type { Scheduler } from "./Scheduler.js"
import type { SimMetrics } from "./SimMetrics.js"
import type { SimOptions } from "./SimOptions.js"

/** Everything a request handler needs: the options, the engine, the scheduler, faults and metrics. */
export interface SimState {
  readonly options: SimOptions
  /** Every model id served (`servedModels`); the first labels metrics and is the default. */
  readonly models: readonly [string, ...Array<string>]
  readonly metrics: SimMetrics
  readonly faults: FaultInjector
  readonly scheduler: Scheduler
  readonly engine: ContentEngine
  /** Absent when prefix caching is off. */
  readonly prefixCache: PrefixCache | undefined
  /** Seeded uniform draws for reasoning lengths. */
  readonly random: () => number
  /** Seeds for sampled requests that send none (temperature > 0 without `seed`). */
  readonly unseeded: () => number
  nextId: number
}
