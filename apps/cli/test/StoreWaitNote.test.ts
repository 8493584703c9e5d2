import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Ref } from "effect"
import { noteStoreOutage } from "../src/runs/StoreWaitNote.js"

describe("the run's store outage lines", () => {
  it.effect("a line when the store cannot be reached and when it is back; the progress note meanwhile", () =>
    Effect.gen(function*() {
      const note = yield* Ref.make<string | undefined>(undefined)
      const lines: Array<string> = []
      const tell = noteStoreOutage(note, (line) => Effect.sync(() => void lines.push(line)))
      yield* tell({
        _tag: "StoreUnreachable",
        message: "appending events failed: Failed to acquire connection (connect ECONNREFUSED 127.0.0.1:5432)",
        tolerance: Duration.minutes(5)
      })
      assert.strictEqual(yield* Ref.get(note), "waiting for the store")
      yield* tell({ _tag: "StoreBack", downMs: 7_400 })
      assert.isUndefined(yield* Ref.get(note))
      assert.deepStrictEqual(lines, [
        "the store cannot be reached (questions wait up to 5m, nothing fails): appending events failed: " +
        "Failed to acquire connection (connect ECONNREFUSED 127.0.0.1:5432)",
        "the store is back after 7 s: the run continues"
      ])
    }))
})
