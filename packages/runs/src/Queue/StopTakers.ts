import { counted } from "@deepnote-rag/core"
import { Deferred, Duration, Effect, Fiber, Option } from "effect"
import type { TakerActivity } from "./TakerActivity.js"

/** How long the stop waits for questions it interrupted after the drain timeout. */
const interruptGrace = Duration.seconds(5)

/**
 * Stops a worker's takers: idle takers end now, busy ones when their question reaches a call boundary — bounded by the
 * drain timeout, then interrupted, and never waited on for longer than `interruptGrace` after that (a question that
 * does not stop holds its job until this process ends and the job's lock expires; another worker then resumes it).
 * It runs as a finalizer, where nothing is interruptible: the waits are made interruptible explicitly, or the timeouts
 * could never cut them short.
 */
export const stopTakers = (options: {
  readonly stopping: Deferred.Deferred<void>
  readonly takers: ReadonlyArray<Fiber.RuntimeFiber<void>>
  readonly activity: TakerActivity
  readonly drainTimeout: Duration.DurationInput
}): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { activity, takers } = options
    yield* Deferred.succeed(options.stopping, undefined)
    yield* Effect.forEach(
      takers,
      (fiber, slot) => activity.busy.has(slot) ? Effect.void : Fiber.interruptFork(fiber),
      { discard: true }
    )
    const ended = (timeout: Duration.DurationInput) =>
      Effect.interruptible(Fiber.awaitAll(takers)).pipe(
        Effect.timeout(timeout),
        Effect.option,
        Effect.map(Option.isSome)
      )
    if (yield* ended(options.drainTimeout)) return
    yield* Effect.forEach(takers, Fiber.interruptFork, { discard: true })
    if (yield* ended(interruptGrace)) return
    const running = (yield* Effect.forEach(takers, Fiber.poll)).filter(Option.isNone).length
    yield* Effect.logWarning(
      `${counted(running, "question")} did not stop within ${Duration.format(interruptGrace)} of being interrupted; ` +
        "their jobs go back to the queue once this process has ended and their locks expire"
    )
  })
