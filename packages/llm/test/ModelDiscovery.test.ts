import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { httpClientLayer, LlmCache, LlmClient, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect, Layer } from "effect"

const call = Effect.flatMap(LlmClient, (client) =>
  client.chat({
    role: "judge",
    messages: [{ role: "user", content: "### Question\nWho?" }],
    // no model: the client asks the endpoints' /v1/models for one
    sampling: samplingFor(defaultRunConfig, "judge")
  }))

/** The message a call fails with when no endpoint lists a model, over `http` and the endpoints at `urls`. */
const failureOver = (http: Layer.Layer<HttpClient.HttpClient>, urls: readonly [string, ...Array<string>]) =>
  call.pipe(
    Effect.flip,
    Effect.map((error) => error.message),
    Effect.provide(
      LlmClient.layer.pipe(
        Layer.provide(Layer.mergeAll(UsageLedger.layer, LlmCache.layerTest, http)),
        Layer.provide(LlmSettings.layer({ endpoints: Arr.map(urls, (url) => ({ url })), outageToleranceMs: 0 }))
      )
    ),
    Effect.scoped
  )

/** A server that answers every request with `status` (and no model list). */
const answering = (status: number) =>
  Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) => Effect.succeed(HttpClientResponse.fromWeb(request, new Response("no", { status }))))
  )

describe("no model configured and none discovered", () => {
  it.live("the failure says why each endpoint's /v1/models gave none: nothing listening (real HTTP), a 404", () =>
    Effect.gen(function*() {
      // nothing listens on port 9 of 127.0.0.1: the connection is refused
      const refused = yield* failureOver(httpClientLayer({ connections: 4 }), ["http://127.0.0.1:9/v1"])
      assert.include(refused, "no model configured and no endpoint answered /v1/models with a model id")
      assert.include(refused, "http://127.0.0.1:9 (connection refused)")
      const notFound = yield* failureOver(answering(404), ["http://a:8000", "http://b:8000"])
      assert.include(notFound, "http://a:8000 (HTTP 404), http://b:8000 (HTTP 404)")
    }))
})
