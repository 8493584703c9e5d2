import { answerQuestion, deepnoteStop, passageBudget, profiles, Question, renactStop } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { configOf, scripted, scriptedRun } from "./Scripted.js"

const question = new Question({ id: "q1", text: "Who directed the film that won the prize?" })

const readIds = (
  result: { readonly trace: { readonly passages: ReadonlyArray<{ passage: { id: string } }> } }
) => [...new Set(result.trace.passages.map((e) => e.passage.id))]

describe("passage budget (maxUniquePassages, every profile)", () => {
  it.effect("deepnote: the retrieval that reaches the budget is cut to what remains, then passage-cap", () =>
    Effect.gen(function*() {
      // 5 fresh passages per retrieval: 5 → 10 → cut to 2 → 12, stopped before the third step
      const { calls, result } = yield* scriptedRun(question)({ verdicts: [true, true, true] }, {
        maxUniquePassages: 12
      })
      assert.strictEqual(result.stopReason, "passage-cap")
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.counters.uniquePassages, 12)
      assert.strictEqual(calls.updates[1]!.passages.length, 2)
      assert.strictEqual(calls.retrievals.length, 3)
      assert.strictEqual(readIds(result).length, 12)
    }))

  it.effect("deepnote: no budget by default; every one of max_step steps reads top_k", () =>
    Effect.gen(function*() {
      const { result } = yield* scriptedRun(question)({ verdicts: [true, true, true] }, {})
      assert.strictEqual(result.stopReason, "max-step")
      assert.strictEqual(result.counters.uniquePassages, 20)
      assert.isUndefined(passageBudget(configOf({}), profiles.deepnote.defaults))
    }))

  it.effect("a budget below top_k cuts the first retrieval: the loop stops after the first note", () =>
    Effect.gen(function*() {
      for (const profile of ["deepnote", "adaptive-note", "vanilla", "init-note"] as const) {
        const { calls, result } = yield* scriptedRun(question, { profile })({ verdicts: [] }, { maxUniquePassages: 3 })
        assert.strictEqual(result.counters.uniquePassages, 3, profile)
        assert.strictEqual(calls.retrievals.length, 1, profile)
        assert.strictEqual(
          result.stopReason,
          profile === "vanilla" || profile === "init-note" ? "baseline" : "passage-cap"
        )
      }
    }))

  it.effect("renact: seen passages come back free; new ones stop at the budget", () =>
    Effect.gen(function*() {
      const { calls, result } = yield* scriptedRun(question, { profile: "renact" })({
        verdicts: [],
        plans: [["first"], ["second"], ["third"]],
        retrievals: [["a", "b", "c", "d", "e"], ["a", "b", "f", "g", "h"], ["i", "j"]]
      }, { maxUniquePassages: 7 })
      // step 2: a, b seen (free), f, g fill the budget, h is cut
      assert.deepStrictEqual(calls.updates.slice(5).map((u) => u.passages[0]!.id), ["a", "b", "f", "g"])
      assert.strictEqual(result.stopReason, "passage-cap")
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.counters.uniquePassages, 7)
    }))

  it.effect("deeprag: its retrieved subqueries stop at the budget", () =>
    Effect.gen(function*() {
      const { result } = yield* scriptedRun(question, { profile: "deeprag" })({
        verdicts: [true, true, true],
        plans: [["one"], ["two"], ["three"], []]
      }, { maxUniquePassages: 8 })
      assert.strictEqual(result.stopReason, "passage-cap")
      assert.strictEqual(result.counters.steps, 2)
      assert.strictEqual(result.counters.uniquePassages, 8)
    }))

  it.effect("paper and adaptive-note default to 15; the others are unbounded unless set", () =>
    Effect.sync(() => {
      const budgets = Object.fromEntries(
        Object.values(profiles).map((p) => [p.name, passageBudget(configOf({ profile: p.name }), p.defaults)])
      )
      assert.deepStrictEqual(budgets, {
        deepnote: undefined,
        paper: 15,
        "adaptive-note": 15,
        renact: undefined,
        deeprag: undefined,
        "no-retrieval": undefined,
        vanilla: undefined,
        "init-note": undefined
      })
      assert.strictEqual(passageBudget(configOf({ maxUniquePassages: 9 }), profiles.paper.defaults), 9)
    }))

  it.effect("stop policies as values: the budget after their own reasons", () =>
    Effect.sync(() => {
      const config = configOf({ maxUniquePassages: 10 })
      assert.strictEqual(deepnoteStop({ step: 1, failures: 0, uniquePassages: 9, config }), undefined)
      assert.strictEqual(deepnoteStop({ step: 1, failures: 0, uniquePassages: 10, config }), "passage-cap")
      assert.strictEqual(deepnoteStop({ step: 3, failures: 0, uniquePassages: 10, config }), "max-step")
      assert.strictEqual(deepnoteStop({ step: 1, failures: 2, uniquePassages: 10, config }), "max-failure")
      assert.strictEqual(renactStop({ step: 1, failures: 0, uniquePassages: 10, config }), "passage-cap")
      assert.strictEqual(renactStop({ step: 1, failures: 0, uniquePassages: 99, config: configOf({}) }), undefined)
    }))

  it.effect("a retrieval never returns more new passages than the budget leaves", () =>
    Effect.gen(function*() {
      // duplicates within one retrieval count once
      const { calls, layer } = scripted({ verdicts: [], retrievals: [["a", "a", "b", "c"]] })
      const result = yield* answerQuestion(question, configOf({ profile: "vanilla", maxUniquePassages: 2 })).pipe(
        Effect.provide(layer)
      )
      assert.deepStrictEqual(result.trace.passages.map((e) => e.passage.id), ["a", "a", "b"])
      assert.strictEqual(result.counters.uniquePassages, 2)
      assert.strictEqual(calls.answers.length, 1)
    }))
})
