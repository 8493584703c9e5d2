import { type AlignItemResult, defaultRunConfig, PreferencePair, type Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type AlignCalls, alignQuestion, directCalls, ExtractiveSampler, paperRecipe } from "../src/index.js"
import { chineseQuestions, extractiveJudges, questions, sampleHome, sampleQuestions } from "./Support.js"

const validate = Schema.validateSync(PreferencePair)

/** Every question of `qs` through the recipe (extractive samples and judges, real FTS retrieval over the sample). */
const alignAll = (home: string, qs: ReadonlyArray<Question>, calls: AlignCalls = directCalls, recipe = paperRecipe()) =>
  Effect.gen(function*() {
    const sampler = yield* ExtractiveSampler.make(recipe.grid)
    return yield* Effect.forEach(
      qs,
      (question) =>
        alignQuestion({ question, runId: "r-test", config: defaultRunConfig, spec: recipe, sampler, calls }).pipe(
          Effect.provide(extractiveJudges(home))
        )
    )
  })

const pairsOf = (results: ReadonlyArray<AlignItemResult>) =>
  results.flatMap((r) => r.outcomes.flatMap((o) => (o.pair === undefined ? [] : [o.pair])))

describe("DNAlign recipe (extractive samples and judges)", () => {
  it.scopedLive("every role gives valid pairs: schema, chosen ≠ rejected, one prompt ending with the user turn", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const qs = yield* questions(sampleQuestions, 10)
      const results = yield* alignAll(home, qs)
      const pairs = pairsOf(results)
      for (const role of ["init", "plan", "update", "answer"] as const) {
        assert.isAbove(pairs.filter((p) => p.role === role).length, 0, `${role} pairs`)
      }
      for (const [i, pair] of pairs.entries()) {
        validate(pair)
        assert.notStrictEqual(pair.chosen[0].content, pair.rejected[0].content)
        assert.strictEqual(pair.prompt[0].role, "system")
        assert.strictEqual(pair.prompt[pair.prompt.length - 1]!.role, "user")
        const question = qs.find((q) => q.id === pair.meta.question_id)!
        assert.include(pair.prompt[1]!.content, question.text, `pair ${i}: the prompt is the role's for its question`)
      }
      // every question has one outcome per role, in the recipe's order: a pair or the reason there is none
      for (const r of results) {
        assert.deepStrictEqual(r.outcomes.map((o) => o.role), ["init", "plan", "update", "answer"])
        for (const o of r.outcomes) assert.isTrue((o.pair === undefined) !== (o.dropped === undefined))
        assert.isTrue(r.topK >= 3 && r.topK <= 9)
      }
    }))

  it.scopedLive("the same seed gives the same pairs; calls go through `calls` in a fixed order", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const qs = yield* questions(sampleQuestions, 4)
      const kinds: Array<string> = []
      const recording: AlignCalls = {
        call: (kind, _request, _schema, execute) => Effect.zipRight(Effect.sync(() => kinds.push(kind)), execute)
      }
      const first = yield* alignAll(home, qs, recording)
      const order = [...kinds]
      kinds.length = 0
      const second = yield* alignAll(home, qs, recording)
      assert.deepStrictEqual(pairsOf(second), pairsOf(first))
      assert.deepStrictEqual(kinds, order)
      // per question: the first retrieval, 9 init samples, then the group judge
      assert.deepStrictEqual(order.slice(0, 11), ["retrieve", ...Array(9).fill("init"), "rank"])
    }))

  it.scopedLive("roles not asked are not sampled: an answer-only run makes one retrieval and 9 answers", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const qs = yield* questions(sampleQuestions, 2)
      const kinds: Array<string> = []
      const recording: AlignCalls = {
        call: (kind, _request, _schema, execute) => Effect.zipRight(Effect.sync(() => kinds.push(kind)), execute)
      }
      const results = yield* alignAll(home, qs, recording, paperRecipe({ roles: ["answer"] }))
      assert.deepStrictEqual(kinds.slice(0, 10), ["retrieve", ...Array(9).fill("answer")])
      assert.isTrue(results.every((r) => r.outcomes.length === 1 && r.outcomes[0]!.role === "answer"))
    }))

  it.scopedLive("Chinese questions get the Chinese prompts; a question without gold gives no answer pair", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const qs = (yield* questions(chineseQuestions, 3)).map((q, i) => (i === 0 ? { ...q, answers: undefined } : q))
      const results = yield* alignAll(home, qs, directCalls, paperRecipe({ roles: ["init", "answer"] }))
      const pairs = pairsOf(results)
      assert.isAbove(pairs.length, 0)
      for (const pair of pairs) assert.include(pair.prompt[1]!.content, "### 问题")
      assert.strictEqual(results[0]!.outcomes.find((o) => o.role === "answer")?.dropped, "no-gold")
    }))
})
