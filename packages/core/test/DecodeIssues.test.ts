import { decodeIssues, PositiveInt, RunConfig } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"

const issuesOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Either.match(Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input), {
    onLeft: (error) => decodeIssues(error).map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    onRight: () => []
  })

describe("decodeIssues", () => {
  it.effect("drops an optional field's \"Expected undefined\" when the field's own rule failed", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(issuesOf(RunConfig, { topK: 0 }), ["topK: topK must be a positive integer"])
      const Request = Schema.Struct({
        config: Schema.optional(Schema.Struct({ topK: Schema.optional(PositiveInt("topK")) }))
      })
      // without the filter: the rule, then "Expected undefined" for config.topK and for config
      assert.deepStrictEqual(issuesOf(Request, { config: { topK: 0 } }), [
        "config.topK: topK must be a positive integer"
      ])
    }))

  it.effect("drops a nullable field's \"Expected null\" likewise", () =>
    Effect.sync(() => {
      const Request = Schema.Struct({ stream: Schema.optionalWith(Schema.Boolean, { nullable: true }) })
      assert.deepStrictEqual(issuesOf(Request, { stream: "yes" }), ["stream: Expected boolean, actual \"yes\""])
      assert.deepStrictEqual(issuesOf(Schema.Struct({ none: Schema.Null }), { none: 1 }), [
        "none: Expected null, actual 1"
      ])
    }))

  it.effect("keeps every real issue, and an \"Expected undefined\" that stands alone", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(issuesOf(RunConfig, { topK: 0, maxStep: -1 }), [
        "topK: topK must be a positive integer",
        "maxStep: maxStep must be a positive integer"
      ])
      assert.deepStrictEqual(issuesOf(Schema.Struct({ gone: Schema.Undefined }), { gone: 1 }), [
        "gone: Expected undefined, actual 1"
      ])
    }))
})
