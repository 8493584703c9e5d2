import {
  answerQuestion,
  applyPaperCap,
  paperCapRule,
  paperRetrievalQuery,
  Passage,
  Question,
  RunConfig
} from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { scripted } from "./Scripted.js"

const question = new Question({
  id: "q",
  text: "Which magazine was started first, Arthur's Magazine or First for Women?"
})
const paper = (knobs: object) => Schema.decodeUnknownSync(RunConfig)({ profile: "paper", ...knobs })

describe("paper profile (reference rules)", () => {
  it.effect("retrieves with (planner text + newline + question) cut to 500 characters, one call of top_k", () =>
    Effect.gen(function*() {
      const long = "x".repeat(480)
      const { calls, layer } = scripted({
        verdicts: [true, true, true],
        plans: [["first query", "second query"], [long]]
      })
      // a budget of 20 leaves room for all three steps (5 fresh passages each)
      const result = yield* answerQuestion(question, paper({ maxUniquePassages: 20 })).pipe(Effect.provide(layer))
      assert.deepStrictEqual(calls.retrievals[1]!.queries, [`1. first query\n2. second query\n${question.text}`])
      const second = calls.retrievals[2]!.queries[0]!
      assert.strictEqual(second.length, 500)
      assert.strictEqual(second, `1. ${long}\n${question.text}`.slice(0, 500))
      assert.strictEqual(calls.retrievals[1]!.topK, 5)
      assert.strictEqual(calls.retrievals[1]!.exclude.size, 0)
      // the raw planner text is the logged query, and notes lose their newlines
      assert.deepStrictEqual(calls.plans[1]!.queryLog, ["1. first query\n2. second query"])
      assert.strictEqual(result.bestNote?.text, "note-3line")
    }))

  it.effect("passage cap: filter seen passages only when adding top_k would cross the cap, stop at the cap", () =>
    Effect.gen(function*() {
      // top_k 5, cap 12: 5 → step 1: 5+5 ≤ 12, room 0, unfiltered (a repeats) → 9 → step 2: 9+5 > 12, room 3:
      // seen filtered, cut to 3 → 12 → stop: the budget is exact (the reference would retrieve unfiltered at exactly
      // the cap and read 14)
      const { calls, result } = yield* Effect.gen(function*() {
        const s = scripted({
          verdicts: [true, true, true, true, true],
          retrievals: [
            ["a", "b", "c", "d", "e"],
            ["a", "f", "g", "h", "i"],
            ["a", "j", "k", "l", "m"],
            ["a", "b", "c", "n", "o"]
          ]
        })
        const r = yield* answerQuestion(question, paper({ maxStep: 5, maxFailure: 5, maxUniquePassages: 12 })).pipe(
          Effect.provide(s.layer)
        )
        return { calls: s.calls, result: r }
      })
      assert.deepStrictEqual(calls.updates.map((u) => u.passages.map((p) => p.id)), [
        ["a", "f", "g", "h", "i"],
        ["j", "k", "l"]
      ])
      assert.strictEqual(result.stopReason, "passage-cap")
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.counters.uniquePassages, 12)
    }))

  it.effect("the cap rule at exactly the cap neither stops nor filters", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(paperCapRule(15, 5, 15), { _tag: "Continue", room: 0 })
      assert.deepStrictEqual(paperCapRule(16, 5, 15), { _tag: "Stop" })
      assert.deepStrictEqual(paperCapRule(12, 5, 15), { _tag: "Continue", room: 3 })
      assert.deepStrictEqual(paperCapRule(10, 5, 15), { _tag: "Continue", room: 0 })
      const p = (id: string) => new Passage({ id, title: id, text: id, source: "t", score: 0 })
      assert.deepStrictEqual(applyPaperCap([p("a"), p("b"), p("c")], new Set(["a"]), 1).map((x) => x.id), ["b"])
      assert.strictEqual(paperRetrievalQuery("q1\nq2", "Q"), "q1\nq2\nQ")
    }))
})
