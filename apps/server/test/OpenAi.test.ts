import { assert, describe, it } from "@effect/vitest"
import { ChatOpenAI } from "@langchain/openai"
import { Effect } from "effect"
import OpenAI from "openai"
import { baseUrl, homeWithTenant, portServer, settings } from "./Harness.js"

const question =
  "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"

describe("OpenAI-compatible facade (official openai client, real 127.0.0.1 port)", () => {
  it.scopedLive("models, chat completions (non-streaming and streaming, with usage), errors", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "default")
      return yield* Effect.gen(function*() {
        const url = yield* baseUrl
        const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })

        const models = yield* Effect.promise(() => openai.models.list())
        const ids = models.data.map((m) => m.id)
        for (const id of ["deepnote", "deepnote-paper", "deepnote-vanilla"]) assert.include(ids, id)

        const completion = yield* Effect.promise(() =>
          openai.chat.completions.create({
            model: "deepnote",
            messages: [{ role: "system", content: "Answer briefly." }, { role: "user", content: question }]
          })
        )
        assert.strictEqual(completion.object, "chat.completion")
        const answer = completion.choices[0]?.message.content ?? ""
        assert.isAbove(answer.length, 0)
        // the extractive engine calls no LLM: honest usage is zero
        assert.deepStrictEqual(completion.usage, {
          prompt_tokens: 0,
          completion_tokens: 0,
          total_tokens: 0,
          prompt_tokens_details: { cached_tokens: 0 }
        })
        const extension =
          (completion as unknown as { deepnote: { counters: { steps: number }; trace: { passages: Array<unknown> } } })
            .deepnote
        assert.isAbove(extension.trace.passages.length, 0)

        const stream = yield* Effect.promise(() =>
          openai.chat.completions.create({
            model: "deepnote-paper",
            messages: [{ role: "user", content: question }],
            stream: true,
            stream_options: { include_usage: true }
          })
        )
        const chunks = yield* Effect.promise(async () => {
          const all: Array<OpenAI.Chat.Completions.ChatCompletionChunk> = []
          for await (const chunk of stream) all.push(chunk)
          return all
        })
        const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")
        assert.isAbove(text.length, 0)
        const words = chunks.filter((c) => (c.choices[0]?.delta.content ?? "") !== "")
        assert.strictEqual(
          words.length,
          text.trim().split(/\s+/).length,
          "an answer written at once streams word by word"
        )
        assert.strictEqual(
          chunks.find((c) => c.choices[0]?.finish_reason === "stop")?.choices[0]?.finish_reason,
          "stop"
        )
        assert.strictEqual(chunks.find((c) => c.usage)?.usage?.completion_tokens, 0)

        const unknownModel = yield* Effect.promise(() =>
          openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }).then(
            () => undefined,
            (e: unknown) => e
          )
        )
        assert.instanceOf(unknownModel, OpenAI.NotFoundError)
        assert.strictEqual((unknownModel as InstanceType<typeof OpenAI.NotFoundError>).code, "model_not_found")
        assert.strictEqual((unknownModel as InstanceType<typeof OpenAI.NotFoundError>).type, "invalid_request_error")
        const badKey = new OpenAI({ apiKey: "dn_nope", baseURL: `${url}/v1`, maxRetries: 0 })
        const denied = yield* Effect.promise(() => badKey.models.list().then(() => undefined, (e: unknown) => e))
        assert.instanceOf(denied, OpenAI.AuthenticationError)
      }).pipe(Effect.provide(portServer(home)))
    }))

  it.scopedLive("conformance: unsupported parameters, ranges, models/{id}, error shape, request ids, rate limits, CORS", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "default")
      return yield* Effect.gen(function*() {
        const url = yield* baseUrl
        const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })
        const messages = [{ role: "user" as const, content: question }]
        const refused: Array<[Record<string, unknown>, string]> = [
          [{ n: 2 }, "n"],
          [{ tools: [{ type: "function", function: { name: "f", parameters: {} } }] }, "tools"],
          [{ tool_choice: "auto" }, "tool_choice"],
          [{ logprobs: true }, "logprobs"],
          [{ response_format: { type: "json_schema", json_schema: { name: "x", schema: {} } } }, "response_format"],
          [{ response_format: { type: "json_object" } }, "response_format"],
          [{ temperature: 2.5 }, "temperature"],
          [{ temperature: -0.1 }, "temperature"],
          [{ top_p: 1.5 }, "top_p"],
          [{ max_tokens: 0 }, "max_tokens"],
          [{ max_completion_tokens: -3 }, "max_completion_tokens"],
          [{ messages: [] }, "messages"]
        ]
        for (const [extra, param] of refused) {
          const error = yield* Effect.promise(() =>
            openai.chat.completions.create({ model: "deepnote", messages, ...extra }).then(
              () => undefined,
              (e: unknown) => e
            )
          )
          assert.instanceOf(error, OpenAI.BadRequestError, param)
          const bad = error as InstanceType<typeof OpenAI.BadRequestError>
          assert.strictEqual(bad.param, param)
          assert.strictEqual(bad.type, "invalid_request_error")
          assert.include(bad.message, param)
          if (param === "messages") assert.include(bad.message, "messages: must hold at least one message")
        }
        // LangChain's structured output asks for a JSON schema: a clear 400 instead of a silently ignored format
        const structured = new ChatOpenAI({
          model: "deepnote",
          apiKey: key,
          configuration: { baseURL: `${url}/v1` },
          maxRetries: 0
        }).withStructuredOutput({
          title: "answer",
          type: "object",
          properties: { director: { type: "string" } },
          required: ["director"]
        })
        const refusedStructured = yield* Effect.promise(() =>
          structured.invoke(question).then(() => undefined, (e: unknown) => e)
        )
        assert.instanceOf(refusedStructured, Error)
        assert.include((refusedStructured as Error).message, "response_format")

        // values in range are accepted (and ignored: the run config governs the roles)
        const ok = yield* Effect.promise(() =>
          openai.chat.completions.create({
            model: "deepnote",
            messages,
            temperature: 0.2,
            top_p: 1,
            max_tokens: 64,
            n: 1
          })
        )
        assert.strictEqual(ok.choices.length, 1)

        const model = yield* Effect.promise(() => openai.models.retrieve("deepnote-vanilla"))
        assert.strictEqual(model.id, "deepnote-vanilla")
        const missing = yield* Effect.promise(() => openai.models.retrieve("gpt-4o").then(() => undefined, (e) => e))
        assert.instanceOf(missing, OpenAI.NotFoundError)

        // the raw error body, the request id (echoed or generated) and the rate-limit headers
        const response = yield* Effect.promise(() =>
          fetch(`${url}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-request-id": "abc-123" },
            body: JSON.stringify({ model: "deepnote", messages, n: 3 })
          })
        )
        assert.strictEqual(response.status, 400)
        assert.strictEqual(response.headers.get("x-request-id"), "abc-123")
        assert.strictEqual(response.headers.get("x-ratelimit-limit-requests"), "1000000")
        assert.isNotNull(response.headers.get("x-ratelimit-remaining-requests"))
        const body = yield* Effect.promise(() => response.json() as Promise<unknown>)
        assert.deepStrictEqual(body, {
          error: {
            message: "n: only n=1 is supported (one answer per question)",
            type: "invalid_request_error",
            param: "n",
            code: "validation_error"
          }
        })
        // a wrong type names the mistake alone (not "(and 1 more issue)" for the field's null and absent alternatives)
        const wrongType = yield* Effect.promise(() =>
          fetch(`${url}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ model: "deepnote", messages, stream: "yes" })
          }).then((r) => r.json() as Promise<{ error: { message: string; param: string } }>)
        )
        assert.deepStrictEqual([wrongType.error.message, wrongType.error.param], [
          "stream: Expected boolean, actual \"yes\"",
          "stream"
        ])
        // the native API keeps its own error shape; every route gets a request id
        const native = yield* Effect.promise(() =>
          fetch(`${url}/v1/ask`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ question: "" })
          })
        )
        assert.strictEqual(native.status, 400)
        assert.match(native.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{24}$/)
        const nativeBody = (yield* Effect.promise(() => native.json())) as { _tag: string; error: { code: string } }
        assert.strictEqual(nativeBody._tag, "ValidationError")
        const health = yield* Effect.promise(() => fetch(`${url}/healthz`))
        assert.isNotNull(health.headers.get("x-request-id"))
        // CORS is off by default: no access-control headers for a foreign origin
        const preflight = yield* Effect.promise(() =>
          fetch(`${url}/v1/chat/completions`, {
            method: "OPTIONS",
            headers: { origin: "https://chat.example", "access-control-request-method": "POST" }
          })
        )
        assert.isNull(preflight.headers.get("access-control-allow-origin"))
      }).pipe(Effect.provide(portServer(home)))
    }))

  it.scopedLive("CORS opt-in: an allowed origin gets the headers, another does not", () =>
    Effect.gen(function*() {
      const { home } = yield* homeWithTenant("acme", "default")
      return yield* Effect.gen(function*() {
        const url = yield* baseUrl
        const preflight = (origin: string) =>
          Effect.promise(() =>
            fetch(`${url}/v1/chat/completions`, {
              method: "OPTIONS",
              headers: {
                origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "authorization"
              }
            })
          )
        const allowed = yield* preflight("https://chat.example")
        assert.strictEqual(allowed.headers.get("access-control-allow-origin"), "https://chat.example")
        const other = yield* preflight("https://evil.example")
        assert.isNull(other.headers.get("access-control-allow-origin"))
      }).pipe(
        Effect.provide(
          portServer(home, { ...settings(), corsOrigins: ["https://chat.example", "http://localhost:3000"] })
        )
      )
    }))

  it.scopedLive("/v1/ask SSE: token events, ids, and a reconnect with Last-Event-ID resumes after it", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "default")
      return yield* Effect.gen(function*() {
        const url = yield* baseUrl
        const post = (headers: Record<string, string> = {}) =>
          Effect.promise(async () => {
            const response = await fetch(`${url}/v1/ask`, {
              method: "POST",
              headers: {
                authorization: `Bearer ${key}`,
                "content-type": "application/json",
                accept: "text/event-stream",
                ...headers
              },
              body: JSON.stringify({ question, collection: "default", config: { maxStep: 1, maxFailure: 1 } })
            })
            return { status: response.status, text: await response.text() }
          })
        const blocks = (text: string) =>
          text.split("\n\n").filter((b) => b.includes("event:")).map((b) => ({
            event: /^event: (.*)$/m.exec(b)?.[1] ?? "",
            id: /^id: (.*)$/m.exec(b)?.[1] ?? ""
          }))
        const firstResponse = yield* post()
        const first = blocks(firstResponse.text)
        assert.strictEqual(firstResponse.status, 200, firstResponse.text.slice(0, 300))
        assert.include(first.map((b) => b.event), "token")
        assert.strictEqual(first[first.length - 1]?.event, "result")
        const askId = first[0]!.id.split(".")[0]!
        assert.match(askId, /^ask_[0-9a-f]+$/)
        assert.deepStrictEqual(first.map((b) => b.id), first.map((_, i) => `${askId}.${i + 1}`))
        // resume after the third event: the rest, the same ids, no new question
        const resumed = yield* post({ "last-event-id": `${askId}.3` })
        assert.deepStrictEqual(blocks(resumed.text), first.slice(3))
        const gone = yield* post({ "last-event-id": "ask_0123abcd.1" })
        assert.strictEqual(gone.status, 404)
      }).pipe(Effect.provide(portServer(home)))
    }))
})
