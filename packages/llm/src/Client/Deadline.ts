import { Effect, Exit, Fiber, FiberId } from "effect"

/**
 * Fails with `onTimeout()` when `self` has not finished within `ms` (and interrupts it, which aborts its HTTP request).
 * `Effect.timeoutFail` races `self` against a sleeping fiber, two forks per call; this costs one fork and one timer,
 * which matters on the LLM client's hot path (measured in benchmarks/llm). Wall-clock, like the socket it guards.
 */
export const withDeadline = <A, E, R, E2>(
  self: Effect.Effect<A, E, R>,
  ms: number,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.flatMap(Effect.fork(self), (fiber) =>
    Effect.suspend(() => {
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        fiber.unsafeInterruptAsFork(FiberId.none)
      }, ms)
      return Effect.flatMap(
        Effect.ensuring(Fiber.await(fiber), Effect.sync(() => clearTimeout(timer))),
        (exit): Effect.Effect<A, E | E2> => timedOut && Exit.isInterrupted(exit) ? Effect.fail(onTimeout()) : exit
      )
    }))
