import type { ServerLoad } from "./ServerLoad.js"

/**
 * The controller's constants; the README's "Adaptive concurrency" says why each is what it is.
 * `queueHigh`/`queueLow` are shares of the server's batch size (max_num_seqs, else the running count seen while it
 * queued): the band of waiting requests kept on the server.
 */
export const controller = {
  initialLimit: 8,
  /** The waiting queue kept on a server whose batch is the limit: 1/16 of its batch (at least 1). */
  queueTarget: 1 / 16,
  kvHigh: 0.8,
  /** Below this KV-cache use, free batch slots are filled fast (half of them per poll, within the cache's room). */
  kvLow: 0.65,
  kvCut: 0.9,
  preemptionCut: 0.7,
  overloadCut: 0.9,
  /** The most a queue-driven cut removes at once (half the limit). */
  maxQueueCut: 0.5,
  /** Without metrics: cut when the per-token latency exceeds this multiple of its floor. */
  latencyRise: 2,
  /** A cut waits for the previous one to take effect (in-flight down to the limit), or this long. */
  settleMs: 2000
} as const

export interface LimitChange {
  readonly from: number
  readonly to: number
  readonly reason: string
}

/**
 * One endpoint's adaptive concurrency limit, in the family of TCP's AIMD, Netflix's concurrency-limits (AIMD,
 * Gradient2, Vegas) and Envoy's gradient controller, but steered first by what the server says about itself, as the
 * routers for shared vLLM servers are (vLLM's waiting queue, running batch, KV-cache use, pre-emptions):
 * - grow while the server has free batch slots and no queue and we are using the whole limit: by half the free slots,
 *   our calls it does not show yet counted as taking slots (slow start: by the whole limit until the first cut, when
 *   the batch size is unknown);
 * - hold while its queue is within [batch/32, batch/8] — a short queue keeps the batch full between two polls;
 * - cut when the queue passes batch/8 (by our share of the excess, so two clients converge to equal shares), when
 *   the KV cache is over 90% full (×0.85), on pre-emptions (×0.7), and on overload answers (×0.9, once per poll);
 * - without fresh metrics, the per-token latency against its floor plays the queue's part (a gradient, as Gradient2).
 * Never below 1; at most `max`.
 */
export class AdaptiveLimit {
  value: number
  private slowStart = true
  private lastPreemptions: number | undefined = undefined
  private lastCutAt = Number.NEGATIVE_INFINITY
  private lastOverloadCutAt = Number.NEGATIVE_INFINITY
  /** The largest batch seen running while requests waited: the server's max_num_seqs when it does not say. */
  private batchSeen = 0
  private latencyFloor = Number.POSITIVE_INFINITY
  private latencyAvg: number | undefined = undefined

  constructor(initial: number, private readonly max: number, private readonly intervalMs: number) {
    this.value = Math.max(1, Math.min(initial, max))
  }

  private cut(factorOrValue: number, absolute: boolean, reason: string, now: number): LimitChange {
    const from = this.value
    this.value = Math.max(1, absolute ? factorOrValue : from * factorOrValue)
    this.slowStart = false
    this.lastCutAt = now
    return { from, to: this.value, reason }
  }

  private grow(step: number, reason: string): LimitChange | undefined {
    const from = this.value
    this.value = Math.min(this.max, from + Math.max(1, step))
    return this.value === from ? undefined : { from, to: this.value, reason }
  }

  /** Whether the previous cut has taken effect (our in-flight calls came down to the limit), or has had time to. */
  private settled(inFlight: number, now: number): boolean {
    return inFlight <= Math.ceil(this.value) || now - this.lastCutAt >= controller.settleMs
  }

  /**
   * A fresh reading of the server's load. `inFlight`: our calls on this endpoint; `demand`: calls of ours are waiting
   * for a slot (we would send more if allowed); `batch`: the server's max_num_seqs when it reports it.
   */
  observe(
    load: ServerLoad,
    inFlight: number,
    demand: boolean,
    batch: number | undefined,
    now: number
  ): LimitChange | undefined {
    const preempted = this.lastPreemptions !== undefined && load.preemptions !== undefined &&
      load.preemptions > this.lastPreemptions
    this.lastPreemptions = load.preemptions ?? this.lastPreemptions
    if (load.waiting > 0 && load.running > this.batchSeen && (batch === undefined || load.running <= batch)) {
      this.batchSeen = load.running
    }
    const size = batch ?? (this.batchSeen > 0 ? this.batchSeen : undefined)
    const kv = load.kvUsage ?? 0
    // Requests wait although batch slots are free: the KV cache, not the batch, is the limit, and any queue only
    // turns into pre-emptions. Otherwise a short queue keeps the batch full between two polls.
    const kvBound = size !== undefined && load.waiting > 0 && load.running < size - 1
    const target = kvBound ? 0 : Math.max(1, Math.round((size ?? load.running) * controller.queueTarget))
    const settled = this.settled(inFlight, now)
    if (preempted && settled) {
      return this.cut(Math.min(this.value, inFlight) * controller.preemptionCut, true, "pre-emptions", now)
    }
    if (kv > controller.kvHigh && settled) return this.cut(controller.kvCut, false, "KV cache nearly full", now)
    if (load.waiting > target && settled) {
      // our share of the excess: clients cut in proportion to what they hold, and grow by the same steps, so they
      // converge to equal shares (as AIMD flows do)
      const share = inFlight / Math.max(1, load.running + load.waiting)
      const to = Math.max(this.value * (1 - controller.maxQueueCut), this.value - (load.waiting - target) * share)
      return this.cut(to, true, `server queue ${load.waiting} > ${target}${kvBound ? " (KV-bound)" : ""}`, now)
    }
    const using = inFlight >= Math.floor(this.value)
    if (!demand || !using || load.waiting > target || kv > controller.kvHigh) return undefined
    // Our calls the server does not show yet (on the wire, or in its API server before the scheduler queues them):
    // they take batch slots and KV cache as soon as it does, so the headroom the reading shows is theirs already.
    const unseen = Math.max(0, inFlight - (load.running + load.waiting))
    const free = size === undefined ? undefined : size - load.running - unseen
    if (load.waiting === 0 && kv < controller.kvLow && free !== undefined && free > 1) {
      // half the free slots, and no more sequences than half the KV cache's room below kvLow holds at the current
      // footprint per sequence (a sequence admitted now grows: its footprint is a floor)
      const perSequence = kv / Math.max(1, load.running)
      const room = perSequence > 0 ? (controller.kvLow - kv) / perSequence - unseen : free
      return this.grow(Math.floor(Math.min(free, room) / 2), `${free} free batch slots`)
    }
    if (this.slowStart && size === undefined && load.waiting === 0) return this.grow(this.value, "slow start")
    return this.grow(1, "probing")
  }

  /** A 429/503/529 from this endpoint: back off, once per poll interval however many arrive together. */
  overload(now: number): LimitChange | undefined {
    if (now - this.lastOverloadCutAt < this.intervalMs) return undefined
    this.lastOverloadCutAt = now
    return this.cut(controller.overloadCut, false, "overload answers", now)
  }

  /** A finished call's time per output token, for servers without metrics (the latency gradient). */
  latency(latencyMs: number, outputTokens: number): void {
    const perToken = latencyMs / Math.max(1, outputTokens)
    // the floor forgets slowly (1% per call), so a server that got slower for good is not held to an old best
    this.latencyFloor = Math.min(this.latencyFloor * 1.01, perToken)
    this.latencyAvg = this.latencyAvg === undefined ? perToken : this.latencyAvg * 0.9 + perToken * 0.1
  }

  /** A poll without fresh metrics: the latency gradient decides. */
  observeLatency(inFlight: number, demand: boolean, now: number): LimitChange | undefined {
    if (this.latencyAvg === undefined) return undefined
    if (this.latencyAvg > this.latencyFloor * controller.latencyRise && this.settled(inFlight, now)) {
      return this.cut(controller.overloadCut, false, "latency per token doubled", now)
    }
    if (demand && inFlight >= Math.floor(this.value)) return this.grow(1, "latency flat")
    return undefined
  }
}
