import { answerQuestion, defaultRunConfig, Passage, Question, Retriever, RunConfig } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Extractive } from "../src/index.js"
import { termsOf } from "../src/Sentences.js"
import { corliss, guangmao } from "./fixtures.js"

/** A tiny lexical retriever: passages ranked by how many query terms they hold; seen ones are excluded. */
const retrieverOver = (docs: ReadonlyArray<{ title: string; text: string }>) => {
  const passages = docs.map((d, i) =>
    new Passage({ id: `p${i}`, title: d.title, text: d.text, source: "test", score: 0 })
  )
  return Retriever.layerTest({
    search: (request) =>
      Effect.sync(() => {
        const query = new Set(request.queries.flatMap((q) => termsOf(q)))
        return passages
          .filter((p) => !request.exclude.has(p.id))
          .map((p) => ({ p, score: termsOf(`${p.title} ${p.text}`).filter((t) => query.has(t)).length }))
          .filter((s) => s.score > 0)
          .sort((a, b) => b.score - a.score)
          .slice(0, request.topK)
          .map((s) => new Passage({ ...s.p, score: s.score }))
      })
  })
}

const config = Schema.decodeUnknownSync(RunConfig)({ topK: 1, recallK: 5 })

describe("the core pipeline with the extractive engine", () => {
  it.effect("deepnote profile: the planner finds the bridge, the note grows, the judge accepts, the answer comes", () =>
    Effect.gen(function*() {
      const docs = [corliss.film, corliss.distractor, corliss.actress]
      const question = new Question({
        id: "q1",
        text: "Who portrayed Corliss Archer in the film Kiss and Tell, and when was she born?"
      })
      const result = yield* answerQuestion(question, config).pipe(
        Effect.provide(Layer.merge(Extractive.layer, retrieverOver(docs)))
      )
      assert.isTrue(result.trace.queries.some((q) => q.query.startsWith("Shirley Temple")))
      assert.isTrue(result.trace.notes.some((n) => n.verdict?.better === true && n.verdict.parsed === "rule"))
      assert.include(result.bestNote?.text ?? "", "Shirley Temple Black (April 23, 1928")
      assert.isAbove(result.answer.text.length, 0)
    }))

  it.effect("is deterministic and works in Chinese and for every profile", () =>
    Effect.gen(function*() {
      const layer = Layer.merge(Extractive.layer, retrieverOver(guangmao))
      const question = new Question({ id: "q2", text: "广茂铁路全长多少公里？" })
      const first = yield* answerQuestion(question, defaultRunConfig).pipe(Effect.provide(layer))
      const second = yield* answerQuestion(question, defaultRunConfig).pipe(Effect.provide(layer))
      assert.strictEqual(first.answer.text, "364.6公里")
      assert.strictEqual(second.answer.text, first.answer.text)
      assert.strictEqual(second.bestNote?.text, first.bestNote?.text)
      for (const profile of ["paper", "vanilla", "init-note", "no-retrieval"] as const) {
        const r = yield* answerQuestion(question, { ...defaultRunConfig, profile }).pipe(Effect.provide(layer))
        assert.strictEqual(r.answer.text, profile === "no-retrieval" ? "未知" : "364.6公里", profile)
      }
    }))
})
