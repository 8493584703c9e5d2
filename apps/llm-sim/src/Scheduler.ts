import { Effect, Queue } from "effect"
import type { SimMetrics } from "./SimMetrics.js"

/** One generation in the engine: its prompt is prefilled, then one output piece is produced per step. */
export interface Sequence {
  readonly promptTokens: number
  /** Leading prompt tokens found in the prefix cache: no prefill for them. */
  readonly cachedTokens?: number
  /** Output token pieces (at least one). */
  readonly output: ReadonlyArray<string>
  readonly onToken: (piece: string, index: number) => void
  readonly onDone: () => void
  cancelled: boolean
}

interface Live {
  readonly seq: Sequence
  readonly arrivedAt: number
  prefillLeft: number
  generated: number
  emits: boolean
  lastTokenAt: number
}

export interface SchedulerConfig {
  readonly maxNumSeqs: number
  readonly maxBatchedTokens: number
  readonly stepBaseMs: number
  readonly stepPerSeqMs: number
  readonly stepPerPrefillTokenMs: number
  readonly tokensPerStep: number
}

/**
 * A continuous-batching step scheduler in the manner of vLLM v1: each step spends a token budget on one decode token
 * per running sequence, then on prefill chunks of running sequences, then admits waiting sequences (FIFO) while
 * fewer than `maxNumSeqs` run and budget is left. A step lasts `base + perSeq·running + perPrefillToken·prefill`;
 * at its end every decoding sequence (and every sequence whose prefill just completed) emits one token (or
 * `tokensPerStep`, to model speculative decoding).
 * Step times follow a virtual clock, so timer granularity does not drift the average.
 */
export const makeScheduler = (config: SchedulerConfig, metrics: SimMetrics) =>
  Effect.gen(function*() {
    const inbox = yield* Queue.unbounded<Live>()
    const waiting: Array<Live> = []
    let running: Array<Live> = []
    let clock = Date.now()
    let queued = 0

    const admitTokens = () => {
      let budget = config.maxBatchedTokens
      let prefill = 0
      for (const l of running) {
        l.emits = l.prefillLeft === 0
        if (l.emits) budget--
      }
      for (const l of running) {
        if (l.prefillLeft === 0 || budget <= 0) continue
        const take = Math.min(l.prefillLeft, budget)
        l.prefillLeft -= take
        budget -= take
        prefill += take
        l.emits = l.prefillLeft === 0
      }
      while (waiting.length > 0 && running.length < config.maxNumSeqs && budget > 0) {
        const l = waiting.shift()!
        if (l.seq.cancelled) continue
        const take = Math.min(l.prefillLeft, budget)
        l.prefillLeft -= take
        budget -= take
        prefill += take
        l.emits = l.prefillLeft === 0
        running.push(l)
      }
      return prefill
    }

    const finishStep = (now: number) => {
      const still: Array<Live> = []
      for (const l of running) {
        if (l.seq.cancelled) {
          metrics.cancelled++
          continue
        }
        if (!l.emits) {
          still.push(l)
          continue
        }
        const burst = Math.min(config.tokensPerStep, l.seq.output.length - l.generated)
        for (let k = 0; k < burst; k++) {
          if (l.generated === 0) metrics.ttft.observe((now - l.arrivedAt) / 1000)
          else metrics.itl.observe((k === 0 ? now - l.lastTokenAt : 0) / 1000)
          metrics.generationTokens++
          l.seq.onToken(l.seq.output[l.generated]!, l.generated)
          l.generated++
        }
        l.lastTokenAt = now
        if (l.generated >= l.seq.output.length) {
          metrics.success++
          metrics.e2e.observe((now - l.arrivedAt) / 1000)
          l.seq.onDone()
        } else {
          still.push(l)
        }
      }
      running = still
    }

    const gauges = () => {
      metrics.running = running.length
      metrics.waiting = waiting.length
      metrics.kvTokens = running.reduce((n, l) => n + l.seq.promptTokens - l.prefillLeft + l.generated, 0)
      metrics.maxRunning = Math.max(metrics.maxRunning, running.length)
      metrics.maxInSystem = Math.max(metrics.maxInSystem, running.length + waiting.length)
    }

    const step = Effect.gen(function*() {
      if (running.length === 0 && waiting.length === 0) {
        waiting.push(yield* Queue.take(inbox))
        queued = Math.max(0, queued - 1)
        clock = Math.max(clock, Date.now())
      }
      waiting.push(...(yield* Queue.takeAll(inbox)))
      queued = 0
      const prefill = admitTokens()
      gauges()
      const durationMs = config.stepBaseMs + config.stepPerSeqMs * running.length +
        config.stepPerPrefillTokenMs * prefill
      const startMs = Math.max(clock, Date.now() - durationMs)
      clock = startMs + durationMs
      metrics.recordStep({ startMs, durationMs, running: running.length, waiting: waiting.length })
      const sleepMs = clock - Date.now()
      yield* Effect.sleep(Math.max(0, sleepMs))
      finishStep(Date.now())
      gauges()
    })

    yield* Effect.forkScoped(Effect.forever(step))

    /** Queues a sequence; its callbacks fire from the step loop. */
    const unsafeSubmit = (seq: Sequence) => {
      metrics.promptTokens += seq.promptTokens
      Queue.unsafeOffer(inbox, {
        seq,
        arrivedAt: Date.now(),
        prefillLeft: Math.max(1, seq.promptTokens - (seq.cachedTokens ?? 0)),
        generated: 0,
        emits: false,
        lastTokenAt: 0
      })
      queued++
      metrics.maxInSystem = Math.max(metrics.maxInSystem, running.length + waiting.length + queued)
    }
    return { unsafeSubmit, submit: (seq: Sequence) => Effect.sync(() => unsafeSubmit(seq)) }
  })

export type Scheduler = Effect.Effect.Success<ReturnType<typeof makeScheduler>>
