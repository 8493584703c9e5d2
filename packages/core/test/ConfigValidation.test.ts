import { defaultRunConfig, RunConfig, samplingFor } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, ParseResult, Schema } from "effect"

const decode = (input: unknown) =>
  Schema.decodeUnknownEither(RunConfig)(input).pipe(Either.mapLeft((e) => ParseResult.TreeFormatter.formatErrorSync(e)))

const rejects = (input: unknown, ...needles: ReadonlyArray<string>) => {
  const result = decode(input)
  assert.isTrue(Either.isLeft(result), `expected ${JSON.stringify(input)} to be rejected`)
  if (Either.isLeft(result)) { for (const needle of needles) assert.include(result.left, needle) }
}

describe("RunConfig", () => {
  it.effect("has the paper's defaults", () =>
    Effect.sync(() => {
      const c = defaultRunConfig
      assert.deepStrictEqual(
        [
          c.profile,
          c.topK,
          c.recallK,
          c.numQueries,
          c.maxStep,
          c.maxFailure,
          c.maxUniquePassages,
          c.queryComposition,
          c.reranker,
          c.task,
          c.language
        ],
        // no budget unless set: each profile has its own default (`ProfileDefinition.defaults`)
        ["deepnote", 5, 50, 2, 3, 2, undefined, "both", "none", "multihop", "auto"]
      )
      assert.deepStrictEqual(samplingFor(c, "judge"), {
        model: undefined,
        temperature: 0.1,
        topP: 0.9,
        maxTokens: 1280,
        seed: 66
      })
    }))

  it.effect("per-role sampling overrides the defaults", () =>
    Effect.sync(() => {
      const c = Schema.decodeUnknownSync(RunConfig)({
        sampling: { model: "m", temperature: 0.3 },
        roles: { judge: { temperature: 0 } }
      })
      assert.strictEqual(samplingFor(c, "judge").temperature, 0)
      assert.strictEqual(samplingFor(c, "plan").temperature, 0.3)
      assert.strictEqual(samplingFor(c, "answer").model, "m")
    }))

  it.effect("rejects bad combinations with a message naming the field", () =>
    Effect.sync(() => {
      rejects({ maxStep: 2, maxFailure: 3 }, "maxFailure", "maxFailure (3) must be ≤ maxStep (2)")
      rejects({ topK: 60, recallK: 50 }, "topK", "topK (60) must be ≤ recallK (50)")
      rejects({ topK: 0 }, "topK must be a positive integer")
      rejects({ maxStep: 1.5 }, "maxStep must be a positive integer")
      rejects({ topK: Number.NaN }, "topK must be a positive integer")
      rejects({ profile: "magic" }, "profile")
      rejects({ reranker: "http" }, "rerankerUrl is required")
      rejects({ profile: "paper", maxUniquePassages: 3 }, "maxUniquePassages (3) must be ≥ topK (5)")
      rejects({ maxUniquePassages: 0 }, "maxUniquePassages must be a positive integer")
      rejects({ queryComposition: "q0" }, "queryComposition")
      rejects({ sampling: { temperature: 3 } }, "temperature must be between 0 and 2")
      rejects({ roles: { judge: { topP: 0 } } }, "topP must be > 0")
    }))
})
