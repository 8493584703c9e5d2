import { foldProgress, initialProgress, type RunEvent } from "@deepnote-rag/runs"
import { assert, describe, it } from "@effect/vitest"

const fold = (events: ReadonlyArray<RunEvent>) => events.reduce(foldProgress, initialProgress(3, 0, 0))

describe("progress state", () => {
  it("counts an item in flight once, also when its execution is repeated (a store outage ridden out)", () => {
    const runId = "r"
    const state = fold([
      { _tag: "ItemStarted", runId, itemId: "q1" },
      { _tag: "ItemStarted", runId, itemId: "q2" },
      { _tag: "ItemStarted", runId, itemId: "q1" }
    ])
    assert.strictEqual(state.inFlight.size, 2)
    const after = fold([
      { _tag: "ItemStarted", runId, itemId: "q1" },
      { _tag: "ItemStarted", runId, itemId: "q1" },
      { _tag: "ItemDone", runId, itemId: "q1", llmCalls: 11, elapsedMs: 5 },
      { _tag: "ItemStarted", runId, itemId: "q2" },
      { _tag: "ItemFailed", runId, itemId: "q2", message: "no" }
    ])
    assert.deepInclude(after, { done: 1, failed: 1, llmCalls: 11 })
    assert.strictEqual(after.inFlight.size, 0)
  })
})
