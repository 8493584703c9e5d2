import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { listenLocally } from "@deepnote-rag/core/testing"
import {
  chatChunkObject,
  chatCompletionObject,
  LlmClient,
  LlmEngine,
  LlmSettings,
  type LlmSettingsInput
} from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Context, Effect, Layer, Stream } from "effect"
import * as Http from "node:http"

const request = {
  role: "answer" as const,
  messages: [{ role: "user" as const, content: "### Question\nWho?" }],
  sampling: samplingFor(defaultRunConfig, "answer")
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

interface Seen {
  readonly path: string
  readonly authorization: string | undefined
}

/**
 * An OpenAI-compatible server on 127.0.0.1 behind an authorization check (as a proxy with basic auth in front of vLLM
 * would be): `/health`, `/v1/models`, `/metrics` (404) and chat completions, streamed or not, to a request whose
 * Authorization is `accepted`; 401 to any other. Records every request's path and Authorization.
 */
const guardedServer = (accepted: string) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const header = { id: "c1", created: 0, model: "m" }
    const server = Http.createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      req.on("end", () => {
        const path = (req.url ?? "").split("?")[0]!
        seen.push({ path, authorization: req.headers.authorization })
        const json = (status: number, value: unknown) => {
          res.writeHead(status, { "content-type": "application/json" })
          res.end(JSON.stringify(value))
        }
        if (req.headers.authorization !== accepted) return json(401, { error: { message: "who are you?" } })
        if (path === "/health") return json(200, {})
        if (path === "/v1/models") return json(200, { data: [{ id: "m" }] })
        if (path !== "/v1/chat/completions") return json(404, { error: { message: "not here" } })
        const message = { role: "assistant", content: "Steven Spielberg" }
        const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }
        if ((JSON.parse(body) as { stream?: boolean }).stream !== true) {
          return json(200, chatCompletionObject(header, message, "stop", usage))
        }
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(`data: ${JSON.stringify(chatChunkObject(header, { content: "Steven " }, null))}\n\n`)
        res.write(`data: ${JSON.stringify(chatChunkObject(header, { content: "Spielberg" }, "stop"))}\n\n`)
        res.end("data: [DONE]\n\n")
      })
    })
    const port = yield* listenLocally(server)
    return { host: `127.0.0.1:${port}`, seen }
  })

/** The client over real HTTP: the startup check's client (the pooled undici Agent, no response cache). */
const clientWith = (settings: LlmSettingsInput) =>
  Layer.build(LlmEngine.clientLayer.pipe(Layer.provide(LlmSettings.layer(settings)))).pipe(
    Effect.map(Context.get(LlmClient))
  )

describe("an endpoint URL with a user name and password", () => {
  it.scopedLive("they are sent as Authorization: Basic on calls (streamed or not), discovery, probes and load readings; shown nowhere", () =>
    Effect.gen(function*() {
      // `@` in the password is percent-encoded in the URL, and decoded before it is sent
      const server = yield* guardedServer(basic("deepnote", "s@cret"))
      const client = yield* clientWith({
        endpoints: [{ url: `http://deepnote:s%40cret@${server.host}/v1` }],
        maxAttempts: 1,
        healthIntervalMs: 50,
        metricsIntervalMs: 50
      })
      const result = yield* client.chat(request)
      assert.strictEqual(result.content, "Steven Spielberg")
      assert.strictEqual(result.endpoint, `http://${server.host}`)
      const streamed = yield* Stream.runCollect(client.chatStream(request))
      const done = Chunk.findLast(streamed, (event) => event._tag === "Done")
      assert.strictEqual(
        done._tag === "Some" && done.value._tag === "Done" ? done.value.result.content : "",
        "Steven Spielberg"
      )
      const statuses = yield* client.endpoints
      assert.deepStrictEqual(statuses.map((s) => s.url), [`http://${server.host}`])
      // the health probe and the load poller's /metrics come on their own intervals
      const paths = () => new Set(server.seen.map((s) => s.path))
      yield* Effect.sleep("50 millis").pipe(
        Effect.repeat({ until: () => paths().has("/health") && paths().has("/metrics"), times: 200 })
      )
      for (const path of ["/v1/models", "/v1/chat/completions", "/health", "/metrics"]) {
        assert.isTrue(paths().has(path), path)
      }
      assert.deepStrictEqual(
        server.seen.filter((s) => s.authorization !== basic("deepnote", "s@cret")),
        [],
        "every request carried the endpoint's credentials"
      )
    }))

  it.scopedLive("the endpoint's own credentials win over DEEPNOTE_LLM_API_KEY; an endpoint without a user gets the key", () =>
    Effect.gen(function*() {
      const withUser = yield* guardedServer(basic("u", "p"))
      const withKey = yield* guardedServer("Bearer k1")
      const client = yield* clientWith({
        endpoints: [{ url: `http://u:p@${withUser.host}/v1` }, { url: `http://${withKey.host}/v1` }],
        apiKey: "k1",
        maxAttempts: 1
      })
      // discovery asks every endpoint for its models; the calls go to either
      yield* Effect.forEach([1, 2, 3, 4], (i) => client.chat({ ...request, questionId: `q${i}` }))
      assert.isTrue(withUser.seen.some((s) => s.path === "/v1/models"))
      assert.isTrue(withKey.seen.some((s) => s.path === "/v1/models"))
      assert.deepStrictEqual(withUser.seen.filter((s) => s.authorization !== basic("u", "p")), [])
      assert.deepStrictEqual(withKey.seen.filter((s) => s.authorization !== "Bearer k1"), [])
    }))

  it.scopedLive("refused credentials: one message naming the server without them, and where credentials come from", () =>
    Effect.gen(function*() {
      const server = yield* guardedServer(basic("deepnote", "right"))
      // the model is named, so the first request is the call itself (discovery's 401 is another message)
      const client = yield* clientWith({
        endpoints: [{ url: `http://deepnote:wrong@${server.host}/v1` }],
        model: "m",
        maxAttempts: 1
      })
      const failure = yield* Effect.flip(client.chat(request))
      assert.include(failure.message, `401 from http://${server.host}`, failure.message)
      assert.include(failure.message, "check DEEPNOTE_LLM_API_KEY, or the user and password in the server's URL")
      assert.notInclude(failure.message, "wrong")
    }))
})
