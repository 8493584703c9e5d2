import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Logger } from "effect"
import { beatEvery } from "../src/Heartbeat.js"

describe("beatEvery", () => {
  it.live("logs a streak of failed beats once when it begins and once when a beat works again", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
      })
      // beats 2–4 fail (a store outage), the others work; the seventh ends the test
      let beats = 0
      const seventh = yield* Deferred.make<void>()
      const beat = Effect.suspend(() => {
        beats++
        if (beats === 7) return Deferred.succeed(seventh, undefined)
        return beats >= 2 && beats <= 4 ? Effect.fail("connect ECONNREFUSED") : Effect.void
      })
      const fiber = yield* beatEvery({
        interval: "5 millis",
        beat,
        failure: (e) => `could not renew: ${e}`,
        recovered: "renewed again"
      }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Effect.fork)
      yield* Deferred.await(seventh)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(lines, [
        "WARN could not renew: connect ECONNREFUSED (tried again at every beat; logged once)",
        "INFO renewed again"
      ])
    }))
})
