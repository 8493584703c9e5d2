import { answerQuestion, Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { configOf, scripted } from "./Scripted.js"

const question = new Question({ id: "q", text: "Where was the director of Jaws born?" })
const plans = [["Steven Spielberg birthplace", "Spielberg early life"]]

const firstStep = (knobs: object) =>
  Effect.gen(function*() {
    const { calls, layer } = scripted({ verdicts: [true], plans })
    yield* answerQuestion(question, configOf({ maxStep: 1, maxFailure: 1, ...knobs })).pipe(Effect.provide(layer))
    return calls.retrievals[1]!
  })

describe("query composition (deepnote step)", () => {
  it.effect("q0+qt: each planned query together with the question, no leads", () =>
    Effect.gen(function*() {
      const r = yield* firstStep({ queryComposition: "q0+qt" })
      assert.deepStrictEqual(r.queries, [
        `${question.text}\nSteven Spielberg birthplace`,
        `${question.text}\nSpielberg early life`
      ])
      assert.deepStrictEqual(r.leads, [])
    }))

  it.effect("qt: each planned query alone", () =>
    Effect.gen(function*() {
      const r = yield* firstStep({ queryComposition: "qt" })
      assert.deepStrictEqual(r.queries, ["Steven Spielberg birthplace", "Spielberg early life"])
      assert.deepStrictEqual(r.leads, [])
    }))

  it.effect("both (the default): with the question, and each planned query alone as a lead", () =>
    Effect.gen(function*() {
      for (const knobs of [{ queryComposition: "both" }, {}]) {
        const r = yield* firstStep(knobs)
        assert.deepStrictEqual(r.queries, [
          `${question.text}\nSteven Spielberg birthplace`,
          `${question.text}\nSpielberg early life`
        ])
        assert.deepStrictEqual(r.leads, ["Steven Spielberg birthplace", "Spielberg early life"])
        // the reranker, if any, scores against the question and every planned query
        assert.strictEqual(r.rerankQuery, `${question.text}\nSteven Spielberg birthplace\nSpielberg early life`)
      }
    }))

  it.effect("adaptive-note composes its questions the same way", () =>
    Effect.gen(function*() {
      const r = yield* firstStep({ profile: "adaptive-note", queryComposition: "qt" })
      assert.deepStrictEqual(r.queries, ["Steven Spielberg birthplace", "Spielberg early life"])
    }))
})
