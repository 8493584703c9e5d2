import { answerQuestion, deepRagStop, Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { configOf, scripted, scriptedRun } from "./Scripted.js"

const question = new Question({ id: "q1", text: "Who is the mother of the director of film Polish-Russian War?" })
const deeprag = (knobs: object) => configOf({ profile: "deeprag", ...knobs })

const run = scriptedRun(question, { profile: "deeprag" })

describe("deeprag (inference)", () => {
  it.effect("subqueries, each retrieved or answered from the chain, until the final answer", () =>
    Effect.gen(function*() {
      // DeepRAG's worked example: the director (retrieve), the director's mother (retrieve), a check (parametric)
      const { calls, result } = yield* run({
        verdicts: [true, true, false],
        plans: [["Who directed Polish-Russian War?"], ["Who is the mother of Xawery Żuławski?"], ["Is that all?"], []]
      }, {})
      assert.strictEqual(result.stopReason, "finish")
      assert.strictEqual(result.counters.steps, 3)
      assert.deepStrictEqual(result.counters.subqueries, { retrieved: 2, parametric: 1 })
      assert.deepStrictEqual(calls.retrievals.map((r) => r.queries), [["Who directed Polish-Russian War?"], [
        "Who is the mother of Xawery Żuławski?"
      ]])
      // the decision sees the subquery as the candidate and the chain as the best note
      assert.strictEqual(calls.compares[1]!.candidate.text, "Who is the mother of Xawery Żuławski?")
      assert.strictEqual(
        calls.compares[1]!.bestNote.text,
        "Follow up: Who directed Polish-Russian War?\nIntermediate answer: the answer"
      )
      // intermediate answers: passages when retrieved, the chain when parametric; the final answer from the chain
      assert.deepStrictEqual(calls.answers.map((a) => a.evidence._tag), ["Passages", "Passages", "Note", "Note"])
      assert.strictEqual(calls.answers[3]!.question, question.text)
      assert.deepStrictEqual(result.counters.llm, { init: 0, plan: 4, update: 0, judge: 3, answer: 4, total: 11 })
      assert.strictEqual(result.counters.retrievals, 2)
      assert.deepStrictEqual(result.trace.notes.map((n) => n.step), [1, 2, 3])
      assert.include(result.trace.notes[2]!.note.text, "Follow up: Is that all?")
    }))

  it.effect("all parametric: no retrieval at all; the subquery cap (maxIterations, default 5) stops the loop", () =>
    Effect.gen(function*() {
      const { result } = yield* run({ verdicts: [false, false, false, false, false, false] }, {})
      assert.strictEqual(result.stopReason, "max-step")
      assert.strictEqual(result.counters.steps, 5)
      assert.deepStrictEqual(result.counters.subqueries, { retrieved: 0, parametric: 5 })
      assert.strictEqual(result.counters.retrievals, 0)
      const capped = yield* run({ verdicts: [true, true] }, { maxIterations: 2 })
      assert.deepStrictEqual(capped.result.counters.subqueries, { retrieved: 2, parametric: 0 })
      assert.strictEqual(deepRagStop({ step: 2, failures: 0, uniquePassages: 0, config: deeprag({}) }), undefined)
    }))

  it.effect("nothing proposed at the first step: the question is the first follow-up", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [true], plans: [[], []] }, {})
      assert.deepStrictEqual(calls.retrievals.map((r) => r.queries), [[question.text]])
      assert.strictEqual(result.stopReason, "finish")
      assert.deepStrictEqual(result.counters.subqueries, { retrieved: 1, parametric: 0 })
    }))

  it.effect("other profiles report no subquery counts", () =>
    Effect.gen(function*() {
      const { result } = yield* answerQuestion(question, configOf({})).pipe(
        Effect.provide(scripted({ verdicts: [] }).layer),
        Effect.map((result) => ({ result }))
      )
      assert.isUndefined(result.counters.subqueries)
    }))
})
