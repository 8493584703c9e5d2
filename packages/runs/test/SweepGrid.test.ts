import { expandSweep } from "@deepnote-rag/runs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("expandSweep", () => {
  it.effect("every combination of the grid is a cell; an invalid one is skipped with the rule it breaks", () =>
    Effect.gen(function*() {
      const sweep = yield* expandSweep("grid:\n  topK: [0, 3]\n  maxStep: [2, 4]\nlabel: k\n", "grid.yaml", {})
      assert.deepStrictEqual(sweep.cells.map((c) => c.cell), [{ topK: 3, maxStep: 2 }, { topK: 3, maxStep: 4 }])
      assert.deepStrictEqual(sweep.cells.map((c) => [c.config.topK, c.config.maxStep]), [[3, 2], [3, 4]])
      // the rule alone, not the optional field's "Expected undefined, actual 0" beside it
      assert.deepStrictEqual(sweep.skipped.map((s) => s.reason), [
        "topK must be a positive integer",
        "topK must be a positive integer"
      ])
      assert.strictEqual(sweep.label, "k")
    }))

  it.effect("a file that is not YAML fails with one line: the parser's message and position", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(expandSweep("grid:\n  topK: [1\n", "grid.yaml", {}))
      assert.match(error.message, /^grid\.yaml: not valid YAML\/JSON \(.* at line \d+, column \d+\)$/)
      const none = yield* Effect.flip(expandSweep("grid:\n  topK: [0]\n", "grid.yaml", {}))
      assert.strictEqual(none.message, "grid.yaml: no valid cell (topK must be a positive integer)")
    }))
})
