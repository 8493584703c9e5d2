import { Effect, Queue } from "effect"
import { Batch, type BatchConfig, type Live, type Sequence } from "./Batch.js"
import type { SimMetrics } from "./SimMetrics.js"

export type { Sequence } from "./Batch.js"

export interface SchedulerConfig extends BatchConfig {
  readonly stepBaseMs: number
  readonly stepPerSeqMs: number
  readonly stepPerPrefillTokenMs: number
}

/**
 * A continuous-batching step scheduler in the manner of vLLM v1. Each step spends a token budget on one decode token
 * per running sequence, then on prefill chunks of running sequences, then admits waiting sequences (in the policy's
 * order) while fewer than `maxNumSeqs` run, budget is left and the head's prompt fits in the free KV blocks. When a
 * running sequence needs a block and none is free, the policy's victim is pre-empted by recompute: its blocks are
 * freed, it goes back to the waiting queue, and on re-admission it prefills prompt + generated tokens again, then
 * resumes where it left off (nothing is emitted twice). Under the priority policy a waiting request of strictly better
 * priority also displaces the worst running one when the batch is full or its prompt does not fit.
 * A step lasts `base + perSeq·running + perPrefillToken·prefill`; at its end every decoding sequence (and every
 * sequence whose prefill just completed) emits one token (or `tokensPerStep`, to model speculative decoding).
 * Step times follow a virtual clock, so timer granularity does not drift the average.
 */
export const makeScheduler = (config: SchedulerConfig, metrics: SimMetrics) =>
  Effect.gen(function*() {
    const inbox = yield* Queue.unbounded<Live>()
    const batch = new Batch(config, metrics)
    let clock = Date.now()
    let queued = 0
    let arrivals = 0

    const gauges = () => {
      const { running, waiting } = batch
      metrics.running = running.length
      metrics.waiting = waiting.length
      metrics.kvUsage = batch.kv.usage
      metrics.maxRunning = Math.max(metrics.maxRunning, running.length)
      metrics.maxInSystem = Math.max(metrics.maxInSystem, running.length + waiting.length)
    }

    const step = Effect.gen(function*() {
      if (batch.running.length === 0 && batch.waiting.length === 0) {
        batch.enqueue(yield* Queue.take(inbox))
        queued = Math.max(0, queued - 1)
        clock = Math.max(clock, Date.now())
      }
      for (const l of yield* Queue.takeAll(inbox)) batch.enqueue(l)
      queued = 0
      batch.schedule()
      gauges()
      const running = batch.running.length
      const durationMs = config.stepBaseMs + config.stepPerSeqMs * running +
        config.stepPerPrefillTokenMs * batch.prefill
      const startMs = Math.max(clock, Date.now() - durationMs)
      clock = startMs + durationMs
      metrics.recordStep({ startMs, durationMs, running, waiting: batch.waiting.length })
      yield* Effect.sleep(Math.max(0, clock - Date.now()))
      batch.finishStep(Date.now())
      gauges()
    })

    yield* Effect.forkScoped(Effect.forever(step))

    /** Queues a sequence; its callbacks fire from the step loop. */
    const unsafeSubmit = (seq: Sequence) => {
      metrics.promptTokens += seq.promptTokens
      const prefillLeft = Math.max(1, seq.promptTokens - (seq.cachedTokens ?? 0))
      Queue.unsafeOffer(inbox, {
        seq,
        arrivedAt: Date.now(),
        order: arrivals++,
        priority: config.policy.name === "priority" ? seq.priority ?? 0 : 0,
        running: false,
        prefillLeft,
        computed: Math.max(0, seq.promptTokens - prefillLeft),
        blocks: 0,
        generated: 0,
        stepTokens: 0,
        stepPrefill: 0,
        emits: false,
        lastTokenAt: 0
      })
      queued++
      metrics.maxInSystem = Math.max(
        metrics.maxInSystem,
        batch.running.length + batch.waiting.length + queued
      )
    }
    /** Requests beyond the batch right now: waiting ones plus arrivals the next step would not admit. */
    const excess = () => Math.max(0, batch.running.length + batch.waiting.length + queued - config.maxNumSeqs)
    return { unsafeSubmit, submit: (seq: Sequence) => Effect.sync(() => unsafeSubmit(seq)), excess }
  })

export type Scheduler = Effect.Effect.Success<ReturnType<typeof makeScheduler>>
