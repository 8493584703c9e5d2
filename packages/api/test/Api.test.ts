import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Api, AskRequest, ConfigPatch } from "../src/index.js"

describe("Api", () => {
  it("generates an OpenAPI document with every endpoint", () => {
    const spec = OpenApi.fromApi(Api)
    const paths = Object.keys(spec.paths)
    for (
      const path of [
        "/v1/ask",
        "/v1/collections",
        "/v1/runs",
        "/v1/runs/{id}/events",
        "/v1/chat/completions",
        "/v1/models",
        "/healthz",
        "/readyz"
      ]
    ) {
      assert.include(paths, path)
    }
  })

  it("config patches keep the RunConfig field checks and leave unset fields out", () => {
    const decode = Schema.decodeUnknownEither(ConfigPatch)
    const ok = decode({ topK: 3 })
    assert.isTrue(ok._tag === "Right" && ok.right.topK === 3 && ok.right.maxStep === undefined)
    assert.isTrue(decode({ topK: 0 })._tag === "Left")
    assert.isTrue(Schema.decodeUnknownEither(AskRequest)({ question: "  " })._tag === "Left")
  })
})
