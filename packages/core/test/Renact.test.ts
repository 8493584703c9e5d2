import { Question, renactStop } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { configOf, scriptedRun } from "./Scripted.js"

const question = new Question({
  id: "q1",
  text: "Which magazine was started first, Arthur's Magazine or First for Women?"
})
const renact = (knobs: object) => configOf({ profile: "renact", ...knobs })

const run = scriptedRun(question, { profile: "renact" })

describe("renact (NotesWriting + ReAct)", () => {
  it.effect("search, search, finish: a note per retrieved document, the answer from the notes, no judge", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({
        verdicts: [],
        plans: [["Arthur's Magazine founded"], ["First for Women founded"], []]
      }, {})
      assert.strictEqual(result.stopReason, "finish")
      assert.strictEqual(result.counters.steps, 2)
      // no retrieval before the first action; each action's query is retrieved alone
      assert.deepStrictEqual(calls.retrievals.map((r) => r.queries), [["Arthur's Magazine founded"], [
        "First for Women founded"
      ]])
      assert.deepStrictEqual(calls.plans.map((p) => p.count), [1, 1, 1])
      assert.deepStrictEqual(calls.plans[2]!.queryLog, ["Arthur's Magazine founded", "First for Women founded"])
      // one notes call per document, over (query, document, notes so far)
      assert.strictEqual(calls.updates.length, 10)
      assert.isTrue(calls.updates.every((u) => u.passages.length === 1))
      assert.strictEqual(calls.updates[0]!.question, "Arthur's Magazine founded")
      assert.strictEqual(calls.updates[0]!.bestNote.text, "")
      assert.strictEqual(calls.updates[1]!.bestNote.text, "note-1\nline")
      assert.strictEqual(calls.compares.length, 0)
      assert.strictEqual(calls.inits.length, 0)
      const evidence = calls.answers[0]!.evidence
      assert.strictEqual(evidence._tag === "Note" ? evidence.note.text : "", "note-1\nline\nnote-2")
      assert.deepStrictEqual(result.counters.llm, { init: 0, plan: 3, update: 10, judge: 0, answer: 1, total: 14 })
      assert.strictEqual(result.counters.retrievals, 2)
      // the notes after each step, in the trace without verdicts
      assert.deepStrictEqual(result.trace.notes.map((n) => [n.step, n.note.text, n.verdict]), [
        [1, "note-1\nline", undefined],
        [2, "note-1\nline\nnote-2", undefined]
      ])
    }))

  it.effect("a finish before any search searches the question instead", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [], plans: [[], []] }, {})
      assert.deepStrictEqual(calls.retrievals.map((r) => r.queries), [[question.text]])
      assert.strictEqual(result.stopReason, "finish")
      assert.strictEqual(result.counters.steps, 1)
    }))

  it.effect("without finish, T (default 5) actions stop the loop", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* run({ verdicts: [] }, {})
      assert.strictEqual(result.stopReason, "max-step")
      assert.strictEqual(result.counters.steps, 5)
      assert.strictEqual(calls.plans.length, 5)
      assert.strictEqual(result.counters.retrievals, 5)
    }))

  it.effect("T is a knob; a repeated query ends the loop as no-new-queries", () =>
    Effect.gen(function*() {
      const capped = yield* run({ verdicts: [] }, { maxIterations: 2 })
      assert.strictEqual(capped.result.stopReason, "max-step")
      assert.strictEqual(capped.result.counters.steps, 2)
      const repeated = yield* run({ verdicts: [], plans: [["same query"], ["same query"]] }, {})
      assert.strictEqual(repeated.result.stopReason, "no-new-queries")
      assert.strictEqual(repeated.result.counters.steps, 1)
      assert.strictEqual(renactStop({ step: 4, failures: 0, uniquePassages: 0, config: renact({}) }), undefined)
      assert.strictEqual(renactStop({ step: 5, failures: 0, uniquePassages: 0, config: renact({}) }), "max-step")
    }))
})
