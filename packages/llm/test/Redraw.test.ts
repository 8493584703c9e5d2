import { type CallContext, defaultRunConfig, Note, structuredFormats } from "@deepnote-rag/core"
import {
  type ChatRequest,
  type ChatResult,
  LlmAnswerer,
  LlmClient,
  LlmJudge,
  LlmNoteWriter,
  LlmQueryPlanner,
  UsageLedger
} from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref, Stream } from "effect"

/** An LLM client double: replies in order, recording each request's seed; any other method is a defect. */
const scripted = (replies: ReadonlyArray<string>, seeds: Ref.Ref<ReadonlyArray<number>>) =>
  Layer.succeed(
    LlmClient,
    LlmClient.of({
      chat: (request: ChatRequest) =>
        Ref.modify(seeds, (seen): [ChatResult, ReadonlyArray<number>] => [
          {
            content: replies[seen.length] ?? "(no more replies scripted)",
            finishReason: "stop",
            structured: "enforced",
            model: "m",
            endpoint: "http://127.0.0.1:9",
            usage: { promptTokens: 1, completionTokens: 1 },
            attempts: 1,
            latencyMs: 0,
            cached: false
          },
          [...seen, request.sampling.seed]
        ]),
      chatStream: () => Stream.dieMessage("not scripted"),
      complete: () => Effect.dieMessage("not scripted"),
      resolveModel: () => Effect.succeed("m"),
      endpoints: Effect.succeed([]),
      checkModels: () => Effect.succeed([]),
      health: Effect.dieMessage("not scripted"),
      healthChanges: Stream.dieMessage("not scripted")
    })
  )

const context: CallContext = {
  questionId: "q1",
  runId: "r-1",
  step: 1,
  language: "en",
  formats: structuredFormats,
  config: defaultRunConfig
}

/** Runs `use` with the roles over a client that replies `replies`; returns its outcome, the seeds sent, parse failures. */
const withReplies = <A, E>(
  replies: ReadonlyArray<string>,
  use: Effect.Effect<A, E, LlmClient | UsageLedger>
) =>
  Effect.gen(function*() {
    const seeds = yield* Ref.make<ReadonlyArray<number>>([])
    return yield* Effect.gen(function*() {
      const outcome = yield* Effect.either(use)
      const usage = yield* Effect.flatMap(UsageLedger, (ledger) => ledger.snapshot)
      return { outcome, seeds: yield* Ref.get(seeds), parseFailures: usage.total.parseFailures }
    }).pipe(Effect.provide(Layer.merge(scripted(replies, seeds), UsageLedger.layer)))
  })

/** The judge comparing two notes in `at` (the first execution of the question unless told). */
const judgeIn = (at: CallContext) =>
  Effect.flatMap(
    LlmJudge.make,
    (j) =>
      j.compare({ question: "q?", bestNote: new Note({ text: "a" }), candidate: new Note({ text: "b" }), context: at })
  )
const judge = judgeIn(context)

describe("an unreadable reply is drawn again with the next seed", () => {
  it.effect("the judge: garbage, then a verdict — one more call, seed 66 then 67, one parse failure", () =>
    Effect.gen(function*() {
      const run = yield* withReplies(["¯\\_(ツ)_/¯ maybe", "True"], judge)
      assert.strictEqual(run.outcome._tag, "Right")
      if (run.outcome._tag === "Right") assert.isTrue(run.outcome.right.better)
      assert.deepStrictEqual(run.seeds, [66, 67])
      assert.strictEqual(run.parseFailures, 1)
    }))

  it.effect("three unreadable draws: the question's RoleError quotes the last reply and counts the draws", () =>
    Effect.gen(function*() {
      const run = yield* withReplies(["?", "??", "???"], judge)
      assert.deepStrictEqual(run.seeds, [66, 67, 68])
      assert.strictEqual(run.outcome._tag, "Left")
      if (run.outcome._tag === "Left") {
        assert.strictEqual(
          run.outcome.left.message,
          "the judge said neither True nor False (3 draws); the model replied: \"???\""
        )
      }
      assert.strictEqual(run.parseFailures, 3)
    }))

  it.effect("a later execution of the question (a retry) draws the same seeds first, then new ones", () =>
    Effect.gen(function*() {
      const retried = judgeIn({ ...context, attempt: 2 })
      const run = yield* withReplies(["?", "??", "???", "????", "True"], retried)
      assert.deepStrictEqual(run.seeds, [66, 67, 68, 69, 70])
      assert.strictEqual(run.outcome._tag, "Right")
      const spent = yield* withReplies(["?", "??", "???", "????", "?????"], retried)
      assert.strictEqual(spent.outcome._tag, "Left")
      if (spent.outcome._tag === "Left") assert.include(spent.outcome.left.message, "(5 draws)")
    }))

  it.effect("a readable first reply is one call with the run's seed, as before", () =>
    Effect.gen(function*() {
      const run = yield* withReplies(["False"], judge)
      assert.deepStrictEqual(run.seeds, [66])
      assert.strictEqual(run.parseFailures, 0)
    }))

  it.effect("the note writer, the planner and the answerer draw again the same way", () =>
    Effect.gen(function*() {
      const init = yield* withReplies(
        ["", "a note"],
        Effect.flatMap(LlmNoteWriter.make, (w) => w.init({ question: "q?", passages: [], context }))
      )
      assert.deepStrictEqual([init.outcome._tag, init.seeds], ["Right", [66, 67]])
      const plan = yield* withReplies(
        ["   ", "{\"queries\": [\"who\"]}"],
        Effect.flatMap(
          LlmQueryPlanner.make,
          (p) => p.plan({ question: "q?", bestNote: new Note({ text: "a" }), queryLog: [], count: 1, context })
        )
      )
      assert.deepStrictEqual([plan.outcome._tag, plan.seeds], ["Right", [66, 67]])
      const answer = yield* withReplies(
        ["", "Paris"],
        Effect.flatMap(LlmAnswerer.make, (a) => a.answer({ question: "q?", evidence: { _tag: "None" }, context }))
      )
      assert.deepStrictEqual([answer.outcome._tag, answer.seeds], ["Right", [66, 67]])
      if (answer.outcome._tag === "Right") assert.strictEqual(answer.outcome.right.text, "Paris")
    }))
})
