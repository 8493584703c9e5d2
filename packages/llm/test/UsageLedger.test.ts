import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { UsageLedger } from "../src/UsageLedger.js"

const entry = (runId: string | undefined, questionId: string, promptTokens: number, cached = false) => ({
  role: "init" as const,
  runId,
  questionId,
  promptTokens,
  completionTokens: 10,
  latencyMs: 5,
  attempts: 1,
  cached,
  ok: true
})

describe("UsageLedger", () => {
  it.effect("keeps one question's totals per run (the same question id in two runs stays apart)", () =>
    Effect.gen(function*() {
      const ledger = yield* UsageLedger
      yield* ledger.record(entry("r1", "q1", 100))
      yield* ledger.record(entry("r2", "q1", 7))
      yield* ledger.record(entry("r1", "q1", 50))
      yield* ledger.record(entry("r1", "q1", 999, true))
      const r1 = yield* ledger.question("r1", "q1")
      assert.strictEqual(r1?.calls, 3)
      assert.strictEqual(r1?.cachedCalls, 1)
      assert.strictEqual(r1?.promptTokens, 150, "cache hits cost no server tokens")
      assert.strictEqual((yield* ledger.question("r2", "q1"))?.promptTokens, 7)
      assert.isUndefined(yield* ledger.question("r1", "q2"))
      assert.strictEqual(
        (yield* ledger.snapshot).byQuestion["q1"]?.promptTokens,
        157,
        "the snapshot's byQuestion still sums over runs"
      )
    }).pipe(Effect.provide(UsageLedger.layer)))
})
