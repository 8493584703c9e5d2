import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Logger, TestClock } from "effect"
import { beatEvery } from "../src/Heartbeat.js"

describe("beatEvery", () => {
  it.effect("logs a streak of failed beats once when it begins and once when a beat works again", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
      })
      // beats 2–4 fail (a store outage), the others work
      let beats = 0
      const beat = Effect.suspend(() => {
        beats++
        return beats >= 2 && beats <= 4 ? Effect.fail("connect ECONNREFUSED") : Effect.void
      })
      const fiber = yield* beatEvery({
        interval: "10 seconds",
        beat,
        failure: (e) => `could not renew: ${e}`,
        recovered: "renewed again"
      }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Effect.fork)
      yield* TestClock.adjust("70 seconds")
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(beats, 7)
      assert.deepStrictEqual(lines, [
        "WARN could not renew: connect ECONNREFUSED (tried again at every beat; logged once)",
        "INFO renewed again"
      ])
    }))
})
