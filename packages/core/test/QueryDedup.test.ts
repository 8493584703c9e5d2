import { answerQuestion, normaliseQuery, Question, RunConfig, selectNewQueries } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { scripted } from "./Scripted.js"

const question = new Question({ id: "q", text: "Where was the director of Jaws born?" })

describe("planner queries (deepnote profile)", () => {
  it.effect("drops duplicates of the question, of earlier queries and of each other", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({
        verdicts: [true, true, true],
        plans: [
          ["Who directed Jaws?", "where was the director of jaws born", "1. who directed  jaws"],
          ["Who directed Jaws", "Steven Spielberg birthplace", "Spielberg early life"],
          ["steven spielberg birthplace?", "Spielberg early life"]
        ]
      })
      const result = yield* answerQuestion(question, Schema.decodeUnknownSync(RunConfig)({})).pipe(
        Effect.provide(layer)
      )
      assert.deepStrictEqual(result.trace.queries, [
        { step: 1, query: "Who directed Jaws?" },
        { step: 2, query: "Steven Spielberg birthplace" },
        { step: 2, query: "Spielberg early life" }
      ])
      // the planner sees the whole log; step 3 proposed only repeats, so the loop stops without retrieving
      assert.deepStrictEqual(calls.plans[2]!.queryLog, [
        "Who directed Jaws?",
        "Steven Spielberg birthplace",
        "Spielberg early life"
      ])
      assert.strictEqual(result.stopReason, "no-new-queries")
      assert.strictEqual(calls.retrievals.length, 3)
      // each planned query is retrieved together with the question; seen passages are excluded
      assert.deepStrictEqual(calls.retrievals[2]!.queries, [
        `${question.text}\nSteven Spielberg birthplace`,
        `${question.text}\nSpielberg early life`
      ])
      assert.strictEqual(calls.retrievals[2]!.exclude.size, 10)
      assert.strictEqual(calls.retrievals[2]!.recallK, 50)
    }))

  it.effect("a step that finds no new passage is a failure without update or judge calls", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* Effect.gen(function*() {
        const s = scripted({ verdicts: [true], retrievals: [["a", "b"], ["a", "b"], ["a"]] })
        const r = yield* answerQuestion(question, Schema.decodeUnknownSync(RunConfig)({})).pipe(Effect.provide(s.layer))
        return { calls: s.calls, result: r }
      })
      assert.strictEqual(calls.updates.length, 0)
      assert.strictEqual(calls.compares.length, 0)
      assert.strictEqual(result.stopReason, "max-failure")
      assert.strictEqual(result.counters.failures, 2)
      assert.deepStrictEqual(result.trace.notes.slice(1).map((n) => n.verdict?.parsed), ["skipped", "skipped"])
    }))

  it.effect("normalisation ignores case, punctuation, numbering and spacing", () =>
    Effect.sync(() => {
      assert.strictEqual(normaliseQuery("2) Who  directed JAWS?"), "who directed jaws")
      assert.strictEqual(normaliseQuery("“北京大学”在哪里？"), "北京大学 在哪里")
      const { dropped, kept } = selectNewQueries(["a", "A!", "", "b", "c"], "q", ["b"], 5)
      assert.deepStrictEqual(kept, ["a", "c"])
      assert.deepStrictEqual(dropped, ["A!", "", "b"])
    }))
})
