import { Unavailable } from "@deepnote-rag/api"
import { Context, type Duration, Effect, Layer, Ref, Scope } from "effect"
import { ServerEngine } from "../Engine/ServerEngine.js"
import { ServerSettings } from "../ServerSettings.js"
import { askSlots } from "./AskSlots.js"

/** No spans: `acquire` is part of every ask's own span, and the wait is visible there. */
export interface AskLimiterService {
  /** Holds an answer slot until the scope closes. */
  readonly acquire: Effect.Effect<void, Unavailable, Scope.Scope>
  readonly inFlight: Effect.Effect<number>
}

/**
 * Admission control for `/v1/ask` and chat completions: at most `askSlots` answers at once server-wide; up to
 * `askQueue` requests wait up to `askQueueTimeout` for a slot; anything beyond gets 503 `overloaded` + Retry-After.
 */
export class AskLimiter extends Context.Tag("@deepnote-rag/server/AskLimiter")<AskLimiter, AskLimiterService>() {
  static readonly make: Effect.Effect<AskLimiterService, never, ServerSettings | ServerEngine> = Effect.gen(
    function*() {
      const { limits } = yield* ServerSettings
      const slots = yield* askSlots(limits.askConcurrency, yield* ServerEngine)
      yield* Effect.logInfo(`answer slots ${slots.value} (${slots.reason})`)
      const askConcurrency = slots.value
      const semaphore = yield* Effect.makeSemaphore(askConcurrency)
      const waiting = yield* Ref.make(0)
      const running = yield* Ref.make(0)
      const queueTimeout: Duration.DurationInput = limits.askQueueTimeout
      const overloaded = Unavailable.of(
        `the server is answering ${askConcurrency} questions and ${limits.askQueue} more are waiting`,
        1
      )
      const acquire = Effect.gen(function*() {
        const scope = yield* Effect.scope
        const busy = (yield* Ref.get(running)) >= askConcurrency
        if (busy && (yield* Ref.get(waiting)) >= limits.askQueue) return yield* overloaded
        yield* Effect.uninterruptibleMask((restore) =>
          restore(
            Ref.update(waiting, (n) => n + 1).pipe(
              Effect.zipRight(semaphore.take(1)),
              Effect.timeoutFail({ duration: queueTimeout, onTimeout: () => overloaded }),
              Effect.ensuring(Ref.update(waiting, (n) => n - 1))
            )
          ).pipe(
            Effect.zipRight(Ref.update(running, (n) => n + 1)),
            Effect.zipRight(
              Scope.addFinalizer(scope, Effect.zipRight(Ref.update(running, (n) => n - 1), semaphore.release(1)))
            )
          )
        )
      })
      return AskLimiter.of({ acquire, inFlight: Ref.get(running) })
    }
  )

  static readonly layer = Layer.effect(AskLimiter, AskLimiter.make)
}
