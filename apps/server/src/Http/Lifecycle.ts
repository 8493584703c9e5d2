import { counted } from "@deepnote-rag/core"
import { Context, Deferred, Duration, Effect, Layer, Ref } from "effect"

/** No spans on `track` (it wraps every request, whose own span is the HTTP server's). */
export interface LifecycleService {
  readonly draining: Effect.Effect<boolean>
  /** Completes when draining starts: streams end with it. */
  readonly stopping: Deferred.Deferred<void>
  /** Counts the request as in flight while it runs. */
  readonly track: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly inFlight: Effect.Effect<number>
  readonly drain: (timeout: Duration.DurationInput) => Effect.Effect<void>
}

/**
 * Graceful shutdown: `drain` marks the server as stopping (new requests get 503 `shutting_down`, `/readyz` fails),
 * ends event streams, and waits for in-flight requests to finish (up to a timeout) before the listener closes.
 */
export class Lifecycle extends Context.Tag("@deepnote-rag/server/Lifecycle")<Lifecycle, LifecycleService>() {
  static readonly make: Effect.Effect<LifecycleService> = Effect.gen(function*() {
    const draining = yield* Ref.make(false)
    const inFlight = yield* Ref.make(0)
    const stopping = yield* Deferred.make<void>()
    const waitIdle = Effect.gen(function*() {
      while ((yield* Ref.get(inFlight)) > 0) yield* Effect.sleep("20 millis")
    })
    return Lifecycle.of({
      draining: Ref.get(draining),
      stopping,
      inFlight: Ref.get(inFlight),
      track: (effect) =>
        Effect.acquireUseRelease(
          Ref.update(inFlight, (n) => n + 1),
          () => effect,
          () => Ref.update(inFlight, (n) => n - 1)
        ),
      drain: (timeout) =>
        Effect.gen(function*() {
          yield* Ref.set(draining, true)
          yield* Deferred.succeed(stopping, undefined)
          yield* Effect.logInfo(`draining: ${counted(yield* Ref.get(inFlight), "request")} in flight`)
          // `drain` runs as the server's finalizer, where nothing is interruptible: the wait is made interruptible, or
          // the timeout could never cut it short (a request that never ends held the shutdown for good)
          yield* Effect.interruptible(waitIdle).pipe(
            Effect.timeout(Duration.decode(timeout)),
            Effect.catchTag("TimeoutException", () =>
              Ref.get(inFlight).pipe(
                Effect.flatMap((n) =>
                  Effect.logWarning(`drain timed out: closing with ${counted(n, "request")} in flight`)
                )
              ))
          )
        })
    })
  })

  static readonly layer = Layer.effect(Lifecycle, Lifecycle.make)
}
