import { defaultRunConfig } from "@deepnote-rag/core"
import { processOwner, RunExecutor, runReport } from "@deepnote-rag/runs"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { countingEngine, sampleHome } from "./Engine.js"
import { memoryServices, newRun } from "./Runs.js"

const owner = processOwner("test")

describe("runReport: recall at the run's passage budget", () => {
  it.scopedLive("states the budget of the run's config and the passages read", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const executor = yield* RunExecutor
      const runId = yield* newRun(4, { config: { ...defaultRunConfig, maxUniquePassages: 7 } })
      yield* executor.execute(runId, { engine: countingEngine(home, { calls: 0 }), concurrency: 2, owner })
      const report = yield* runReport(runId, { perItem: true })
      assert.strictEqual(report.budget, 7)
      assert.isTrue((report.items ?? []).every((i) => i.passages !== undefined && i.passages <= 7))
      assert.isAtMost(report.cost.passages ?? Infinity, 7)
      const paper = yield* newRun(1, { config: { ...defaultRunConfig, profile: "paper" } })
      assert.strictEqual((yield* runReport(paper)).budget, 15)
      assert.isUndefined((yield* runReport(yield* newRun(1))).budget)
    }).pipe(Effect.provide(memoryServices)))
})
