import { Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { scriptedRun } from "./Scripted.js"

const question = new Question({ id: "q1", text: "Who directed the film that won the prize?" })

const run = scriptedRun(question)

describe("stop policy (the paper's case studies)", () => {
  it.effect("(max_step 3, max_failure 1) with True, False stops after step 2", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [true, false] }, { maxStep: 3, maxFailure: 1 })
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.stopReason, "max-failure")
      assert.strictEqual(calls.compares.length, 2)
      assert.strictEqual(result.bestNote?.text, "note-1\nline")
    }))

  it.effect("(3, 2) with False, False stops after step 2", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [false, false] }, { maxStep: 3, maxFailure: 2 })
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.stopReason, "max-failure")
      assert.strictEqual(calls.plans.length, 2)
      assert.strictEqual(result.bestNote?.text, "note-0")
    }))

  it.effect("(3, 2) with False, True, True runs all 3 steps", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [false, true, true] }, { maxStep: 3, maxFailure: 2 })
      assert.strictEqual(result.counters.steps, 3)
      assert.strictEqual(result.stopReason, "max-step")
      assert.strictEqual(result.counters.failures, 1)
      // the best note changes only on True: step 2 still builds on the initial note, step 3 on step 2's note
      assert.deepStrictEqual(calls.updates.map((u) => u.bestNote.text), ["note-0", "note-0", "note-2\nline"])
      assert.deepStrictEqual(calls.compares.map((c) => c.bestNote.text), ["note-0", "note-0", "note-2\nline"])
      assert.strictEqual(result.bestNote?.text, "note-3\nline")
      assert.deepStrictEqual(result.trace.notes.map((n) => n.best), [true, false, true, true])
    }))

  it.effect("failures are cumulative, not consecutive: F, T, F stops at step 3 with max_failure 2", () =>
    Effect.gen(function*() {
      const { result } = yield* run({ verdicts: [false, true, false, true] }, { maxStep: 5, maxFailure: 2 })
      assert.strictEqual(result.counters.steps, 3)
      assert.strictEqual(result.stopReason, "max-failure")
    }))

  it.effect("LLM calls equal 2 + 3·steps for completed loops", () =>
    Effect.gen(function*() {
      for (
        const [verdicts, maxStep, maxFailure] of [
          [[true, true, true], 3, 2],
          [[false, false], 3, 2],
          [[true, false], 3, 1],
          [[true, true, true, true, true], 5, 5]
        ] as const
      ) {
        const { result } = yield* run({ verdicts }, { maxStep, maxFailure })
        assert.strictEqual(result.counters.llm.total, 2 + 3 * result.counters.steps)
        assert.strictEqual(result.counters.retrievals, 1 + result.counters.steps)
      }
    }))

  it.effect("the answerer receives only the question and the best note", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [true, false, false] }, { maxStep: 3, maxFailure: 2 })
      assert.strictEqual(calls.answers.length, 1)
      const input = calls.answers[0]!
      assert.strictEqual(input.question, question.text)
      assert.deepStrictEqual(Object.keys(input).sort(), ["context", "evidence", "question"])
      assert.strictEqual(input.evidence._tag, "Note")
      if (input.evidence._tag === "Note") assert.strictEqual(input.evidence.note.text, "note-1\nline")
      assert.strictEqual(result.answer.text, "the answer")
    }))
})
