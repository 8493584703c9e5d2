import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { LlmCache, LlmClient, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { fakeServer } from "./FakeServer.js"

// An endpoint configured with a user name and password in its URL: the request URL handed to the HttpClient holds them
// (the transports do not make them an Authorization header), what is shown does not.
const url = "http://deepnote:s3cret@fake:8000"

const request = {
  role: "answer" as const,
  messages: [{ role: "user" as const, content: "### Question\nWho?" }],
  sampling: samplingFor(defaultRunConfig, "answer")
}

const clientOver = (http: Layer.Layer<HttpClient.HttpClient>) =>
  LlmClient.layer.pipe(
    Layer.provide(Layer.mergeAll(UsageLedger.layer, LlmCache.layerTest, http)),
    Layer.provide(LlmSettings.layer({ endpoints: [{ url }], maxAttempts: 1 }))
  )

/** Lists a model, then answers every chat call 500. */
const failingServer = (seen: Array<string>) =>
  Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((req, requestUrl) =>
      Effect.sync(() => {
        seen.push(requestUrl.href)
        if (requestUrl.pathname === "/v1/models") {
          return HttpClientResponse.fromWeb(req, Response.json({ data: [{ id: "m" }] }))
        }
        return HttpClientResponse.fromWeb(req, Response.json({ error: { message: "engine died" } }, { status: 500 }))
      })
    )
  )

describe("an endpoint URL with credentials", () => {
  it.scoped("results and endpoint statuses show it without them", () =>
    Effect.gen(function*() {
      const client = yield* LlmClient
      const result = yield* client.chat(request)
      assert.notInclude(result.endpoint, "s3cret")
      assert.strictEqual(result.endpoint, "http://fake:8000")
      const statuses = yield* client.endpoints
      assert.deepStrictEqual(statuses.map((s) => s.url), ["http://fake:8000"])
    }).pipe(Effect.provide(clientOver(fakeServer("m")))))

  it.scoped("a failed call's message names the server without them; the request URL still held them", () => {
    const seen: Array<string> = []
    return Effect.gen(function*() {
      const client = yield* LlmClient
      const failure = yield* Effect.flip(client.chat(request))
      assert.include(failure.message, "500 from http://fake:8000:", failure.message)
      assert.notInclude(failure.message, "s3cret")
      assert.isTrue(
        seen.some((href) => href.startsWith("http://deepnote:s3cret@fake:8000/v1/chat/completions")),
        seen.join()
      )
    }).pipe(Effect.provide(clientOver(failingServer(seen))))
  })
})
