import { answerQuestion, EventSink, type PipelineEvent, Question, RunConfig } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { scripted } from "./Scripted.js"

const question = new Question({ id: "q", text: "Is Paris the capital of France?" })
const cfg = (knobs: object) => Schema.decodeUnknownSync(RunConfig)(knobs)

describe("baselines", () => {
  it.effect("no-retrieval answers from the question alone", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({ verdicts: [] })
      const result = yield* answerQuestion(question, cfg({ profile: "no-retrieval" })).pipe(Effect.provide(layer))
      assert.strictEqual(calls.retrievals.length, 0)
      assert.strictEqual(calls.answers[0]!.evidence._tag, "None")
      assert.strictEqual(result.counters.llm.total, 1)
      assert.strictEqual(result.stopReason, "baseline")
    }))

  it.effect("vanilla answers from one retrieval's passages", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({ verdicts: [] })
      const result = yield* answerQuestion(question, cfg({ profile: "vanilla", topK: 3 })).pipe(Effect.provide(layer))
      const evidence = calls.answers[0]!.evidence
      assert.strictEqual(evidence._tag, "Passages")
      if (evidence._tag === "Passages") assert.strictEqual(evidence.passages.length, 3)
      assert.deepStrictEqual([result.counters.retrievals, result.counters.llm.total], [1, 1])
    }))

  it.effect("init-note answers from the initial note", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({ verdicts: [] })
      const result = yield* answerQuestion(question, cfg({ profile: "init-note" })).pipe(Effect.provide(layer))
      assert.strictEqual(calls.answers[0]!.evidence._tag, "Note")
      assert.deepStrictEqual([result.counters.llm.init, result.counters.llm.answer, result.counters.llm.total], [
        1,
        1,
        2
      ])
      assert.strictEqual(result.bestNote?.text, "note-0")
    }))
})

describe("events", () => {
  it.effect("are published in order with step numbers", () =>
    Effect.gen(function*() {
      const events: Array<PipelineEvent> = []
      const { layer } = scripted({ verdicts: [true, false, false] })
      const sink = EventSink.layer((event) => Effect.sync(() => void events.push(event)))
      yield* answerQuestion(question, cfg({})).pipe(Effect.provide(Layer.merge(layer, sink)))
      assert.deepStrictEqual(events.map((e) => `${e._tag}@${e.step}`), [
        "Retrieved@0",
        "NoteInitialised@0",
        "QueriesPlanned@1",
        "Retrieved@1",
        "NoteUpdated@1",
        "Judged@1",
        "QueriesPlanned@2",
        "Retrieved@2",
        "NoteUpdated@2",
        "Judged@2",
        "QueriesPlanned@3",
        "Retrieved@3",
        "NoteUpdated@3",
        "Judged@3",
        "Stopped@3",
        "Answered@3"
      ])
      const decoded = events.map((e) => Schema.decodeUnknownSync(Schema.parseJson(Schema.Unknown))(JSON.stringify(e)))
      assert.strictEqual(decoded.length, events.length)
    }))

  it.effect("a failing role publishes Failed and fails the question", () =>
    Effect.gen(function*() {
      const events: Array<PipelineEvent> = []
      const { layer } = scripted({ verdicts: [] })
      const { Retriever, RetrievalError } = yield* Effect.promise(() => import("@deepnote-rag/core"))
      const broken = Retriever.layerTest({
        search: () => Effect.fail(new RetrievalError({ message: "index missing" }))
      })
      const sink = EventSink.layer((event) => Effect.sync(() => void events.push(event)))
      const error = yield* answerQuestion(question, cfg({})).pipe(
        Effect.provide(Layer.mergeAll(layer, broken, sink)),
        Effect.flip
      )
      assert.strictEqual(error._tag, "RetrievalError")
      assert.deepStrictEqual(events.map((e) => e._tag), ["Failed"])
    }))
})
