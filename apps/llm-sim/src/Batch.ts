import { KvBlocks } from "./KvBlocks.js"
import type { SchedulingPolicy } from "./SchedulingPolicy.js"
import type { SimMetrics } from "./SimMetrics.js"

/** One request in the engine: its prompt is prefilled, then one output piece is produced per step. */
export interface Sequence {
  readonly promptTokens: number
  /** Leading prompt tokens found in the prefix cache: no prefill for them. */
  readonly cachedTokens?: number
  /** Output token pieces; none for prefill-only work (embeddings, scores), which is done once its prompt is in. */
  readonly output: ReadonlyArray<string>
  /** vLLM's request `priority` (lower first); read under the priority policy only. Default 0. */
  readonly priority?: number
  readonly onToken: (piece: string, index: number) => void
  readonly onDone: () => void
  cancelled: boolean
}

/** A sequence as the scheduler tracks it. */
export interface Live {
  readonly seq: Sequence
  readonly arrivedAt: number
  readonly order: number
  readonly priority: number
  running: boolean
  prefillLeft: number
  /** Tokens in the KV cache, and the blocks held for them (`KvBlocks`). */
  computed: number
  blocks: number
  generated: number
  /** Budget and prefill this step gave it, given back if it is pre-empted within the step. */
  stepTokens: number
  stepPrefill: number
  emits: boolean
  lastTokenAt: number
}

export interface BatchConfig {
  readonly maxNumSeqs: number
  readonly maxBatchedTokens: number
  readonly tokensPerStep: number
  readonly blockSize: number
  readonly kvCapacityTokens: number
  readonly policy: SchedulingPolicy
}

/**
 * The running batch and the waiting queue, stepped the way vLLM v1's scheduler steps them (see `makeScheduler`):
 * `schedule` decides what one step computes (pre-empting when KV blocks run out), `finishStep` emits its tokens.
 */
export class Batch {
  waiting: Array<Live> = []
  running: Array<Live> = []
  readonly kv: KvBlocks
  private budget = 0
  /** Prompt tokens the current step computes (its prefill cost). */
  prefill = 0

  constructor(readonly config: BatchConfig, readonly metrics: SimMetrics) {
    this.kv = new KvBlocks(config.blockSize, Math.floor(config.kvCapacityTokens / config.blockSize))
  }

  enqueue(l: Live) {
    this.config.policy.enqueue(this.waiting, l, false)
  }

  private fitsWhole(l: Live) {
    return this.kv.used + this.kv.blocksFor(l.computed + l.prefillLeft) <= this.kv.capacity
  }

  /** Pre-emption by recompute: blocks freed, back to the waiting queue, prompt + generated tokens to prefill again. */
  private preempt(l: Live) {
    this.running = this.running.filter((r) => r !== l)
    this.budget += l.stepTokens
    this.prefill -= l.stepPrefill
    l.stepTokens = 0
    l.stepPrefill = 0
    l.emits = false
    l.running = false
    this.kv.free(l)
    l.prefillLeft = Math.max(1, l.seq.promptTokens + l.generated)
    this.metrics.preemptions++
    this.config.policy.enqueue(this.waiting, l, true)
  }

  /** Gives `l` room for `tokens` more, pre-empting victims; false when `l` itself was the victim. */
  private reserve(l: Live, tokens: number): boolean {
    // A lone sequence always fits (maxModelLen ≤ KV capacity is checked at start-up): never pre-empt it.
    while (!this.kv.canGrow(l, tokens) && this.running.length > 1) {
      const victim = this.config.policy.victim(this.running)!
      this.preempt(victim)
      if (victim === l) return false
    }
    this.kv.grow(l, tokens)
    return true
  }

  private prefillChunk(l: Live, take: number) {
    l.prefillLeft -= take
    this.budget -= take
    this.prefill += take
    l.stepTokens += take
    l.stepPrefill += take
    l.emits = l.prefillLeft === 0
  }

  private head(): Live | undefined {
    while (this.waiting.length > 0 && this.waiting[0]!.seq.cancelled) this.waiting.shift()
    return this.waiting[0]
  }

  /** Priority pre-emption: the queue's head displaces worse-priority running sequences it needs room from. */
  private displace() {
    for (let head = this.head(); head !== undefined && this.running.length > 0; head = this.head()) {
      if (this.running.length < this.config.maxNumSeqs && this.fitsWhole(head)) return
      const victim = this.config.policy.victim(this.running)!
      if (!this.config.policy.displaces(head, victim)) return
      this.preempt(victim)
    }
  }

  /** Plans one step: decodes first, then prefill chunks of running sequences, then admissions. */
  schedule() {
    this.budget = this.config.maxBatchedTokens
    this.prefill = 0
    for (const l of this.running) {
      l.stepTokens = 0
      l.stepPrefill = 0
      l.emits = false
    }
    this.displace()
    for (const l of [...this.running]) {
      if (!l.running || l.prefillLeft > 0) continue
      if (!this.reserve(l, Math.min(this.config.tokensPerStep, l.seq.output.length - l.generated))) continue
      l.emits = true
      l.stepTokens = 1
      this.budget--
    }
    for (const l of [...this.running]) {
      if (!l.running || l.prefillLeft === 0 || this.budget <= 0) continue
      const take = Math.min(l.prefillLeft, this.budget)
      if (this.reserve(l, take)) this.prefillChunk(l, take)
    }
    for (let l = this.head(); l !== undefined; l = this.head()) {
      if (this.running.length >= this.config.maxNumSeqs || this.budget <= 0) break
      // Admission never starts a sequence whose prompt does not fit (unless nothing runs: then it fits alone).
      if (this.running.length > 0 && !this.fitsWhole(l)) break
      this.waiting.shift()
      l.running = true
      this.running.push(l)
      const take = Math.min(l.prefillLeft, this.budget)
      this.kv.grow(l, take)
      this.prefillChunk(l, take)
    }
  }

  private finish(l: Live, now: number) {
    this.metrics.success++
    this.metrics.e2e.observe((now - l.arrivedAt) / 1000)
    this.kv.free(l)
    l.running = false
    l.seq.onDone()
  }

  /** Ends the step at `now`: every sequence the step computed a token for emits it (or `tokensPerStep`). */
  finishStep(now: number) {
    const m = this.metrics
    const still: Array<Live> = []
    for (const l of this.running) {
      if (l.seq.cancelled) {
        m.cancelled++
        this.kv.free(l)
        l.running = false
      } else if (!l.emits) {
        still.push(l)
      } else if (l.seq.output.length === 0) {
        this.finish(l, now)
      } else {
        const burst = Math.min(this.config.tokensPerStep, l.seq.output.length - l.generated)
        for (let k = 0; k < burst; k++) {
          if (l.generated === 0) m.ttft.observe((now - l.arrivedAt) / 1000)
          else m.itl.observe((k === 0 ? now - l.lastTokenAt : 0) / 1000)
          m.generationTokens++
          l.seq.onToken(l.seq.output[l.generated]!, l.generated)
          l.generated++
        }
        l.lastTokenAt = now
        if (l.generated >= l.seq.output.length) this.finish(l, now)
        else still.push(l)
      }
    }
    this.running = still
  }
}
