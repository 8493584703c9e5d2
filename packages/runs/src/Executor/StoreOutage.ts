import { errorMessage } from "@deepnote-rag/core"
import { StoreError } from "@deepnote-rag/store"
import { Cause, Clock, Config, Duration, Effect, Exit, Option, Ref } from "effect"

/** How long work waits for a store that cannot be reached, unless its settings say otherwise. */
export const defaultStoreOutageTolerance = Duration.minutes(5)

/** `DEEPNOTE_STORE_OUTAGE_TOLERANCE` (a duration, default 5 minutes): for runs, resumes and queue workers alike. */
export const storeOutageToleranceConfig: Config.Config<Duration.Duration> = Config.duration(
  "DEEPNOTE_STORE_OUTAGE_TOLERANCE"
).pipe(Config.withDefault(defaultStoreOutageTolerance))

/** What an execution says about its store while it rides out an outage. */
export type StoreOutageChange =
  | {
    readonly _tag: "StoreUnreachable"
    /** The store's error (it names the store and what failed). */
    readonly message: string
    /** How long work waits for the store before it fails. */
    readonly tolerance: Duration.Duration
  }
  | { readonly _tag: "StoreBack"; readonly downMs: number }

/** The store error a piece of work failed or died with, when it says the store could not be reached. */
export const unreachableStore = (cause: Cause.Cause<unknown>): Option.Option<StoreError> => {
  if (Cause.isInterrupted(cause)) return Option.none()
  const error = Cause.squash(cause)
  return error instanceof StoreError && error.unreachable ? Option.some(error) : Option.none()
}

export interface StoreOutageOptions {
  /** How long work waits for the store, counted from the moment the outage was first seen. */
  readonly tolerance: Duration.DurationInput
  /** A cheap read of the store: succeeds once the store answers again. */
  readonly probe: Effect.Effect<unknown, unknown>
  /** Told once when an outage begins and once when it ends. */
  readonly onChange: (change: StoreOutageChange) => Effect.Effect<void>
}

export interface StoreOutage {
  /**
   * Runs `work`; when it fails (or dies) because the store cannot be reached, waits until the store answers the probe
   * and runs it again — for at most the tolerance since the outage began, after which the last failure stands. Any
   * other failure, and an interruption, stand at once. `work` must be safe to run again: a question is, through its
   * journal (calls already stored are replayed, events already logged are skipped).
   */
  readonly rideOut: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** The first wait between two probes; it doubles up to `maxDelay`. */
const firstDelay = Duration.millis(250)
const maxDelay = Duration.seconds(2)

/**
 * One execution's view of its store's outages (a Postgres restart, a failover), shared by all of its questions: the
 * outage begins with the first piece of work that finds the store unreachable and ends with the first probe that
 * reaches it, each announced once however many questions wait.
 */
export const makeStoreOutage = (options: StoreOutageOptions): Effect.Effect<StoreOutage> =>
  Effect.gen(function*() {
    const tolerance = Duration.decode(options.tolerance)
    const downSince = yield* Ref.make(Option.none<number>())

    const began = (error: StoreError) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const [since, first] = yield* Ref.modify(
          downSince,
          (current): [readonly [number, boolean], Option.Option<number>] =>
            Option.isSome(current) ? [[current.value, false], current] : [[now, true], Option.some(now)]
        )
        if (first) yield* options.onChange({ _tag: "StoreUnreachable", message: errorMessage(error), tolerance })
        return since
      })

    const ended = Effect.gen(function*() {
      const since = yield* Ref.getAndSet(downSince, Option.none())
      if (Option.isNone(since)) return
      const now = yield* Clock.currentTimeMillis
      yield* options.onChange({ _tag: "StoreBack", downMs: now - since.value })
    })

    /** Waits until the probe reaches the store (true), or the tolerance since `since` has passed (false). */
    const backWithin = (since: number) =>
      Effect.gen(function*() {
        let delay = firstDelay
        while (true) {
          const now = yield* Clock.currentTimeMillis
          const left = Duration.toMillis(tolerance) - (now - since)
          if (left <= 0) return false
          yield* Effect.sleep(Duration.min(delay, Duration.millis(left)))
          delay = Duration.min(Duration.times(delay, 2), maxDelay)
          const probed = yield* Effect.exit(options.probe)
          if (Exit.isSuccess(probed)) return true
          if (Option.isNone(unreachableStore(probed.cause))) return true // it answers (with an error): try the work
        }
      })

    const rideOut = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.gen(function*() {
        while (true) {
          const exit = yield* Effect.exit(work)
          if (Exit.isSuccess(exit)) {
            yield* ended // reached the store: an outage that no probe saw end is over
            return exit.value
          }
          const unreachable = unreachableStore(exit.cause)
          if (Option.isNone(unreachable)) return yield* exit
          const since = yield* began(unreachable.value)
          if (!(yield* backWithin(since))) return yield* exit
          yield* ended
        }
      })

    return { rideOut }
  })

/** The default report of a store outage: a log line when it begins and one when it ends. */
export const logStoreOutage = (change: StoreOutageChange): Effect.Effect<void> =>
  change._tag === "StoreUnreachable"
    ? Effect.logWarning(
      `the store cannot be reached (questions wait up to ${Duration.format(change.tolerance)}): ${change.message}`
    )
    : Effect.logInfo(`the store is back after ${Math.round(change.downMs / 1000)} s: the questions go on`)
