import { answerQuestion, defaultRunConfig, Passage, Question, Retriever } from "@deepnote-rag/core"
import {
  collectCallUsage,
  LlmCache,
  LlmClient,
  LlmEngine,
  LlmSettings,
  sumCallUsage,
  UsageLedger
} from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { fakeServer } from "./FakeServer.js"

/** A server-style engine: roles built once, shared by every question, over the fake server. */
const engine = LlmEngine.rolesLayer.pipe(
  Layer.provideMerge(LlmClient.layer),
  Layer.provideMerge(Layer.mergeAll(UsageLedger.layer, LlmCache.layerTest, fakeServer())),
  Layer.provide(LlmSettings.layer({ endpoints: [{ url: "http://fake:8000" }] })),
  Layer.merge(
    Retriever.layerTest({
      search: () =>
        Effect.succeed([
          new Passage({ id: "p1", title: "Jaws", text: "Jaws is a 1975 film by Spielberg.", source: "test", score: 1 })
        ])
    })
  )
)

const sizeOf = (snapshot: UsageLedger["Type"] extends { snapshot: Effect.Effect<infer S> } ? S : never) =>
  Object.keys(snapshot.byRole).length + Object.keys(snapshot.byModel).length

describe("usage travels with the call; the ledger keeps bounded aggregates", () => {
  it.effect(
    "600 questions of 30 runs through one engine: per-question usage collected, ledger size constant",
    () =>
      Effect.gen(function*() {
        const ledger = yield* UsageLedger
        const ask = (i: number) =>
          collectCallUsage(
            answerQuestion(
              new Question({ id: `q${i}`, text: `Who directed Jaws? (${i})` }),
              { ...defaultRunConfig, engine: "llm", maxStep: 1 },
              { runId: `run-${i % 30}` }
            )
          )
        const [, first] = yield* ask(0)
        const size = sizeOf(yield* ledger.snapshot)
        assert.isAbove(first.length, 2)
        assert.deepStrictEqual(new Set(first.map((c) => c.endpoint)), new Set(["http://fake:8000"]))
        assert.deepStrictEqual(new Set(first.map((c) => c.model)), new Set(["fake-model"]))
        const sum = sumCallUsage(first)
        assert.strictEqual(sum.promptTokens, 100 * first.length)
        assert.strictEqual(sum.cachedPromptTokens, 40 * first.length)
        let calls = first.length
        for (let i = 1; i < 600; i++) {
          const [, usage] = yield* ask(i)
          assert.strictEqual(usage.length, first.length, "each question sees its own calls only")
          calls += usage.length
        }
        const after = yield* ledger.snapshot
        assert.strictEqual(sizeOf(after), size, "nothing keyed by question or run")
        assert.strictEqual(after.total.calls, calls)
      }).pipe(Effect.provide(engine)),
    120_000
  )
})
