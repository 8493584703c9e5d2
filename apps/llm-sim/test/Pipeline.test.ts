import { answerQuestion, Passage, Question, Retriever, RunConfig, type RunConfigInput } from "@deepnote-rag/core"
import { LlmEngine, LlmSettings } from "@deepnote-rag/llm"
import { tokenize } from "@deepnote-rag/text"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { start } from "../src/index.js"
import { fast } from "./support.js"

const english = [
  [
    "Jaws (film)",
    "Jaws is a 1975 American thriller film directed by Steven Spielberg. It is based on the novel by Peter Benchley."
  ],
  [
    "Steven Spielberg",
    "Steven Spielberg is an American filmmaker. He was born in Cincinnati, Ohio, on December 18, 1946."
  ],
  ["Cincinnati", "Cincinnati is a city in the U.S. state of Ohio, on the Ohio River."],
  ["Peter Benchley", "Peter Benchley was an American author, best known for the novel Jaws."],
  ["Duel (1971 film)", "Duel is a 1971 television film, the feature debut of Steven Spielberg."]
] as const

const chinese = [
  ["鲁迅", "鲁迅，原名周树人，浙江绍兴人，是中国现代文学的奠基人之一。"],
  ["狂人日记", "《狂人日记》是鲁迅创作的第一篇白话小说，发表于1918年的《新青年》杂志。"],
  ["绍兴", "绍兴是浙江省的一个地级市，以黄酒和名人故居闻名。"],
  ["新青年", "《新青年》是陈独秀于1915年在上海创办的杂志。"]
] as const

/** A tiny in-test retriever: token overlap with the query, seen passages excluded. */
const retrieverOver = (rows: ReadonlyArray<readonly [string, string]>) => {
  const passages = rows.map(([title, text], i) => new Passage({ id: `p${i}`, title, text, source: "test", score: 0 }))
  const terms = passages.map((p) => new Set(tokenize(`${p.title} ${p.text}`)))
  return Retriever.layerTest({
    search: (request) =>
      Effect.sync(() => {
        const query = new Set(request.queries.flatMap((q) => tokenize(q)))
        return passages
          .map((p, i) => ({ p, score: [...query].filter((t) => terms[i]!.has(t)).length }))
          .filter((x) => !request.exclude.has(x.p.id) && x.score > 0)
          .sort((a, b) => b.score - a.score)
          .slice(0, request.topK)
          .map((x) => new Passage({ ...x.p, score: x.score }))
      })
  })
}

const run = (rows: ReadonlyArray<readonly [string, string]>, question: Question, config: RunConfigInput) =>
  Effect.gen(function*() {
    const sim = yield* start({})
    const layer = LlmEngine.layer.pipe(
      Layer.provide(LlmSettings.layer({ endpoints: [{ url: sim.url }], ...fast, cache: false })),
      Layer.merge(retrieverOver(rows))
    )
    const decoded = yield* Schema.decodeUnknown(RunConfig)(config)
    const result = yield* answerQuestion(question, decoded, { runId: "run-1" }).pipe(Effect.provide(layer))
    return { result, sim }
  })

describe("a full DeepNote question over the LLM roles and the simulator", () => {
  it.scopedLive("English, deepnote profile", () =>
    Effect.gen(function*() {
      const question = new Question({ id: "en-1", text: "In which city was the director of Jaws born?" })
      const { result, sim } = yield* run(english, question, { topK: 2, recallK: 5 })
      assert.isTrue(result.answer.text.length > 0)
      assert.isDefined(result.bestNote)
      assert.strictEqual(result.counters.llm.init, 1)
      assert.strictEqual(result.counters.llm.answer, 1)
      assert.strictEqual(sim.metrics.byRole["init"], 1)
      assert.strictEqual(sim.metrics.byRole["answer"], 1)
      assert.strictEqual(sim.metrics.byRole["plan"] ?? 0, result.counters.llm.plan)
      assert.strictEqual(sim.metrics.byRole["judge"] ?? 0, result.counters.llm.judge)
      assert.isAtLeast(result.counters.llm.plan, 1)
      assert.strictEqual(sim.metrics.requests, result.counters.llm.total)
    }))

  it.scopedLive("Chinese, deepnote profile", () =>
    Effect.gen(function*() {
      const question = new Question({ id: "zh-1", text: "《狂人日记》的作者是哪里人？" })
      const { result, sim } = yield* run(chinese, question, { topK: 2, recallK: 4 })
      assert.isTrue(result.answer.text.length > 0)
      assert.include(result.bestNote?.text ?? "", "狂人日记")
      assert.strictEqual(sim.metrics.requests, result.counters.llm.total)
      assert.isAtLeast(result.counters.llm.total, 2)
    }))

  it.scopedLive("English, paper profile (raw planner text, JSON judge)", () =>
    Effect.gen(function*() {
      const question = new Question({ id: "en-2", text: "Who wrote the novel that Jaws is based on?" })
      const { result } = yield* run(english, question, { profile: "paper", topK: 2, recallK: 5 })
      assert.isTrue(result.answer.text.length > 0)
      const judged = result.trace.notes.filter((n) => n.verdict !== undefined)
      assert.isTrue(judged.every((n) => n.verdict!.parsed === "json"))
    }))

  it.scopedLive("adaptive-note, English and Chinese: its own prompts, its stop rule", () =>
    Effect.gen(function*() {
      const en = yield* run(
        english,
        new Question({ id: "en-4", text: "In which city was the director of Jaws born?" }),
        {
          profile: "adaptive-note",
          topK: 2,
          recallK: 5
        }
      )
      assert.isTrue(en.result.answer.text.length > 0)
      assert.include(["max-failure", "passage-cap", "max-step", "no-new-queries"], en.result.stopReason)
      // T_IU defaults to 1: a loop never goes on after its first rejected note
      assert.isAtMost(en.result.counters.failures, 1)
      assert.strictEqual(en.sim.metrics.requests, en.result.counters.llm.total)
      const zh = yield* run(chinese, new Question({ id: "zh-4", text: "《狂人日记》的作者是哪里人？" }), {
        profile: "adaptive-note",
        topK: 2,
        recallK: 4
      })
      assert.isTrue(zh.result.answer.text.length > 0)
      assert.strictEqual(zh.sim.metrics.requests, zh.result.counters.llm.total)
    }))

  it.scopedLive("renact, English and Chinese: actions, a note per document, no judge", () =>
    Effect.gen(function*() {
      for (
        const [rows, question] of [
          [english, new Question({ id: "en-5", text: "In which city was the director of Jaws born?" })],
          [chinese, new Question({ id: "zh-5", text: "《狂人日记》的作者是哪里人？" })]
        ] as const
      ) {
        const { result, sim } = yield* run(rows, question, { profile: "renact", topK: 2, recallK: 4, maxIterations: 2 })
        assert.isTrue(result.answer.text.length > 0)
        assert.isAtMost(result.counters.steps, 2)
        assert.strictEqual(result.counters.llm.judge, 0)
        assert.strictEqual(result.counters.llm.init, 0)
        assert.isAtLeast(result.counters.llm.plan, 1)
        assert.strictEqual(sim.metrics.requests, result.counters.llm.total)
        assert.strictEqual(sim.metrics.byRole["update"] ?? 0, result.counters.llm.update)
      }
    }))

  it.scopedLive("deeprag, English and Chinese: follow-ups, atomic decisions, counts per question", () =>
    Effect.gen(function*() {
      for (
        const [rows, question] of [
          [english, new Question({ id: "en-6", text: "In which city was the director of Jaws born?" })],
          [chinese, new Question({ id: "zh-6", text: "《狂人日记》的作者是哪里人？" })]
        ] as const
      ) {
        const { result, sim } = yield* run(rows, question, {
          profile: "deeprag",
          topK: 2,
          recallK: 4,
          maxIterations: 3
        })
        assert.isTrue(result.answer.text.length > 0)
        const subqueries = result.counters.subqueries!
        assert.strictEqual(subqueries.retrieved + subqueries.parametric, result.counters.steps)
        assert.strictEqual(result.counters.retrievals, subqueries.retrieved)
        assert.strictEqual(result.counters.llm.judge, result.counters.steps)
        assert.strictEqual(sim.metrics.requests, result.counters.llm.total)
      }
    }))

  it.scopedLive("baselines: vanilla and no-retrieval, yes/no task", () =>
    Effect.gen(function*() {
      const question = new Question({ id: "en-3", text: "Was Steven Spielberg born in Ohio?", task: "yesno" })
      const vanilla = yield* run(english, question, { profile: "vanilla", topK: 2, recallK: 5 })
      assert.include(["yes", "no"], vanilla.result.answer.text)
      const closed = yield* run(english, question, { profile: "no-retrieval" })
      assert.include(["yes", "no"], closed.result.answer.text)
    }))
})
