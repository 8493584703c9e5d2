import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Lifecycle } from "../src/Http/Lifecycle.js"

describe("Lifecycle", () => {
  it.live("drain gives up after its timeout when a request never ends, also as a finalizer (uninterruptible)", () =>
    Effect.gen(function*() {
      const lifecycle = yield* Lifecycle.make
      const request = yield* Effect.fork(lifecycle.track(Effect.never))
      while ((yield* lifecycle.inFlight) === 0) yield* Effect.sleep("5 millis")
      const started = Date.now()
      // the server drains in a finalizer: nothing is interruptible there unless made so
      const drained = yield* Effect.uninterruptible(lifecycle.drain("200 millis")).pipe(
        Effect.fork,
        Effect.flatMap((fiber) => Fiber.await(fiber).pipe(Effect.timeout("10 seconds"), Effect.option))
      )
      assert.isTrue(drained._tag === "Some", "the drain ended")
      assert.isBelow(Date.now() - started, 5_000)
      assert.isTrue(yield* lifecycle.draining)
      assert.strictEqual(yield* lifecycle.inFlight, 1, "the request is still in flight: the listener closes on it")
      yield* Fiber.interrupt(request)
    }))
})
