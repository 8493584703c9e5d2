import { type Duration, Effect, Either } from "effect"

export interface Heartbeat<E, R> {
  readonly interval: Duration.DurationInput
  /** One renewal. */
  readonly beat: Effect.Effect<unknown, E, R>
  /** The warning when renewals begin to fail. */
  readonly failure: (error: E) => string
  /** The line when one works again after failures. */
  readonly recovered: string
}

/**
 * Runs a heartbeat (a lease's or a job lock's renewal) every `interval`, for ever. A failure is logged when a streak of
 * failures begins, and the streak's end when a beat works again — not at every beat: a store outage of a minute is two
 * lines, not one per holder every few seconds.
 */
export const beatEvery = <E, R>(heartbeat: Heartbeat<E, R>): Effect.Effect<never, never, R> =>
  Effect.gen(function*() {
    let failing = false
    while (true) {
      yield* Effect.sleep(heartbeat.interval)
      const renewed = yield* Effect.either(heartbeat.beat)
      if (Either.isLeft(renewed) && !failing) {
        yield* Effect.logWarning(`${heartbeat.failure(renewed.left)} (tried again at every beat; logged once)`)
      } else if (Either.isRight(renewed) && failing) {
        yield* Effect.logInfo(heartbeat.recovered)
      }
      failing = Either.isLeft(renewed)
    }
  })
