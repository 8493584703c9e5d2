import { answerQuestion, AnswerTokens, Question, RunConfig } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { scripted } from "./Scripted.js"

const question = new Question({ id: "q", text: "Is Paris the capital of France?" })
const config = Schema.decodeUnknownSync(RunConfig)({ profile: "vanilla" })

describe("AnswerTokens: the answer stage hands the sink in context to the answerer", () => {
  it.effect("with a sink, the answerer's input carries it; what it publishes reaches the sink", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({ verdicts: [] })
      const received: Array<string> = []
      yield* answerQuestion(question, config).pipe(
        Effect.provide(Layer.merge(layer, AnswerTokens.layer((text) => Effect.sync(() => void received.push(text)))))
      )
      const tokens = calls.answers[0]!.tokens
      assert.isDefined(tokens)
      yield* tokens!("Par")
      assert.deepStrictEqual(received, ["Par"])
    }))

  it.effect("without one, the answerer's input has none (answers arrive whole)", () =>
    Effect.gen(function*() {
      const { calls, layer } = scripted({ verdicts: [] })
      yield* answerQuestion(question, config).pipe(Effect.provide(layer))
      assert.isUndefined(calls.answers[0]!.tokens)
    }))
})
