import { adaptiveNoteStop, defaultRunConfig, Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { scriptedRun } from "./Scripted.js"

const question = new Question({ id: "q1", text: "Who directed the film that won the prize?" })

const run = scriptedRun(question, { profile: "adaptive-note" })

describe("adaptive-note stop rule (IU ≥ T_IU ∨ RP ≥ T_RP ∨ CI ≥ T_CI)", () => {
  it.effect("defaults (T_IU 1, T_CI 3, T_RP 15): one invalid update stops the loop", () =>
    Effect.gen(function*() {
      // 5 passages at init, 5 fresh per step; a rejected note at step 1 is one invalid update
      const { calls, result } = yield* run({ verdicts: [false] }, {})
      assert.strictEqual(result.stopReason, "max-failure")
      assert.strictEqual(result.counters.steps, 1)
      assert.strictEqual(calls.compares.length, 1)
      assert.strictEqual(result.bestNote?.text, "note-0")
    }))

  it.effect("defaults: 15 deduplicated passages stop the loop at the threshold (≥), before the iteration cap", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [true, true, true] }, {})
      assert.strictEqual(result.stopReason, "passage-cap")
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.counters.uniquePassages, 15)
      assert.strictEqual(calls.plans.length, 2)
      assert.strictEqual(result.bestNote?.text, "note-2\nline")
    }))

  it.effect("repeated passages do not count towards T_RP: the iteration cap T_CI stops the loop", () =>
    Effect.gen(function*() {
      const { result } = yield* run({
        verdicts: [true, true, true],
        retrievals: [["a", "b", "c", "d", "e"], ["f", "g"], ["h"], ["i"]]
      }, {})
      assert.strictEqual(result.stopReason, "max-step")
      assert.strictEqual(result.counters.steps, 3)
      assert.strictEqual(result.counters.uniquePassages, 9)
    }))

  it.effect("T_IU is cumulative and a knob: (T_IU 2, T_CI 5) with False, True, False stops after step 3", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [false, true, false, true] }, {
        maxInvalidUpdates: 2,
        maxStep: 5,
        maxFailure: 2,
        maxUniquePassages: 100
      })
      assert.strictEqual(result.stopReason, "max-failure")
      assert.strictEqual(result.counters.steps, 3)
      assert.strictEqual(result.counters.failures, 2)
      assert.strictEqual(calls.compares.length, 3)
      assert.strictEqual(result.bestNote?.text, "note-2\nline")
    }))

  it.effect("T_RP reached by the first retrieval: no step runs, the answer comes from the first note", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [] }, { maxUniquePassages: 5 })
      assert.strictEqual(result.stopReason, "passage-cap")
      assert.strictEqual(result.counters.steps, 0)
      assert.strictEqual(calls.plans.length, 0)
      assert.strictEqual(calls.answers.length, 1)
      assert.strictEqual(result.counters.llm.total, 2)
    }))

  it.effect("the policy as a value: reasons in order invalid updates, passages, iterations", () =>
    Effect.sync(() => {
      const config = { ...defaultRunConfig, profile: "adaptive-note" as const }
      const state = { step: 1, failures: 0, uniquePassages: 10, config }
      assert.strictEqual(adaptiveNoteStop(state), undefined)
      assert.strictEqual(adaptiveNoteStop({ ...state, failures: 1, uniquePassages: 15, step: 3 }), "max-failure")
      assert.strictEqual(adaptiveNoteStop({ ...state, uniquePassages: 15, step: 3 }), "passage-cap")
      assert.strictEqual(adaptiveNoteStop({ ...state, step: 3 }), "max-step")
      assert.strictEqual(
        adaptiveNoteStop({ ...state, failures: 1, config: { ...config, maxInvalidUpdates: 2 } }),
        undefined
      )
    }))
})
