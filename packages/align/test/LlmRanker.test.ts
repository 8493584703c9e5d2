import { type CallContext, defaultRunConfig, Passage, profiles } from "@deepnote-rag/core"
import { LlmEngine, LlmSettings } from "@deepnote-rag/llm"
import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { LlmRanker } from "../src/index.js"

const context: CallContext = {
  questionId: "q1",
  runId: "r-test",
  step: 0,
  language: "en",
  formats: profiles.deepnote.formats,
  config: defaultRunConfig
}

const passages = [
  new Passage({
    id: "p1",
    title: "Kiss and Tell (1945 film)",
    text: "Kiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer.",
    source: "test",
    score: 1
  }),
  new Passage({
    id: "p2",
    title: "Shirley Temple",
    text: "Shirley Temple Black was an American actress who later served as Chief of Protocol of the United States.",
    source: "test",
    score: 1
  })
]

/** The LLM group judge over the simulator, through the real client (HTTP on 127.0.0.1), for the test's scope. */
const ranker = (url: string) =>
  Effect.flatMap(
    Layer.build(
      LlmEngine.clientLayer.pipe(
        Layer.provide(LlmSettings.layer({ endpoints: [{ url: `${url}/v1` }], cache: false, backoffBaseMs: 5 }))
      )
    ),
    (client) => Effect.provide(LlmRanker.make, client)
  )

describe("the LLM group judge (against the simulator)", () => {
  it.scopedLive("names the best and the worst of a group by id; a reply naming none gives no pair, not a failure", () =>
    Effect.gen(function*() {
      const sim = yield* start({ stepBaseMs: 1, tokensPerStep: 8 })
      const judge = yield* ranker(sim.url)
      const question = "What government position was held by the woman who portrayed Corliss Archer?"
      const notes = [
        "Kiss and Tell is a 1945 American comedy film.",
        "Shirley Temple played Corliss Archer in Kiss and Tell; Shirley Temple Black later served as Chief of Protocol.",
        "A film."
      ]
      const ranked = yield* judge.rankNotes({ question, passages, candidates: notes, context })
      assert.deepStrictEqual(ranked, { _tag: "Ranked", bestId: 1, worstId: 2 })
      const queries = yield* judge.rankQueries({
        question,
        note: notes[1]!,
        queryLog: [],
        candidates: [[question], ["Shirley Temple Black government position"]],
        rendered: [
          JSON.stringify({ queries: [question] }),
          JSON.stringify({ queries: ["Shirley Temple Black government position"] })
        ],
        context
      })
      assert.deepStrictEqual(queries, { _tag: "Ranked", bestId: 1, worstId: 0 })
      assert.strictEqual(sim.metrics.requests, 2)

      sim.faults.failNext(["garbage"])
      const garbled = yield* judge.rankNotes({ question, passages, candidates: notes, context })
      assert.strictEqual(garbled._tag, "Unreadable")
    }))
})
