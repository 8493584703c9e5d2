import { Effect, Scheduler } from "effect"

/**
 * A scheduler whose yields go through `setImmediate`, so pending I/O (new requests, socket writes) runs between
 * slices of a fiber. The default scheduler yields on microtasks first, which lets a CPU-bound engine (the extractive
 * baseline) hold the event loop for seconds while HTTP requests wait.
 */
export const eventLoopScheduler: Scheduler.Scheduler = Scheduler.makeBatched((runBatch) => void setImmediate(runBatch))

/**
 * Runs an effect (and the fibers it forks) on `eventLoopScheduler`, yielding every 64 operations instead of 2048:
 * a question is a few hundred coarse operations, so with the default it would never give the event loop a turn.
 */
export const yieldingToIo = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.withScheduler(eventLoopScheduler), Effect.withMaxOpsBeforeYield(64))
