import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import OpenAI from "openai"
import { baseUrl, homeWithTenant, portServer } from "./Harness.js"

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
        assert.isAbove(completion.usage?.total_tokens ?? 0, 0)
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
        assert.strictEqual(
          chunks.find((c) => c.choices[0]?.finish_reason === "stop")?.choices[0]?.finish_reason,
          "stop"
        )
        assert.isAbove(chunks.find((c) => c.usage)?.usage?.completion_tokens ?? 0, 0)

        const unknownModel = yield* Effect.promise(() =>
          openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }).then(
            () => undefined,
            (e: unknown) => e
          )
        )
        assert.instanceOf(unknownModel, OpenAI.NotFoundError)
        const badKey = new OpenAI({ apiKey: "dn_nope", baseURL: `${url}/v1`, maxRetries: 0 })
        const denied = yield* Effect.promise(() => badKey.models.list().then(() => undefined, (e: unknown) => e))
        assert.instanceOf(denied, OpenAI.AuthenticationError)
      }).pipe(Effect.provide(portServer(home)))
    }))
})
