import { Api, CurrentTenant } from "@deepnote-rag/api"
import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { Ask } from "../../Ask/Ask.js"
import { completionOf, configPatchFor, modelIds, profileOfModel, questionOf } from "../../OpenAi/ChatCompletions.js"
import { chatChunks } from "../../OpenAi/ChatStream.js"
import { checkParameters } from "../../OpenAi/Parameters.js"
import { sseResponse } from "../SseResponse.js"

export const OpenAiHandlers = HttpApiBuilder.group(Api, "openai", (handlers) =>
  Effect.gen(function*() {
    const ask = yield* Ask
    const started = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const modelOf = (id: string) => ({ id, object: "model" as const, created: started, owned_by: "deepnote" })
    return handlers
      .handle("chatCompletions", ({ payload }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          yield* checkParameters(payload)
          const profile = yield* profileOfModel(payload.model)
          const question = yield* questionOf(payload.messages)
          const input = {
            question,
            collection: payload.deepnote?.collection,
            config: configPatchFor(profile, payload.deepnote?.config),
            configField: "deepnote.config"
          }
          const id = `chatcmpl-${randomBytes(12).toString("hex")}`
          const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          if (payload.stream === true) {
            const items = yield* ask.stream(tenant, input)
            const includeUsage = payload.stream_options?.include_usage === true
            return sseResponse(chatChunks({ id, created, model: payload.model, includeUsage }, items))
          }
          return completionOf(id, created, payload.model, yield* ask.answer(tenant, input))
        }))
      .handle("models", () => Effect.succeed({ object: "list" as const, data: modelIds.map(modelOf) }))
      .handle("model", ({ path }) => Effect.as(profileOfModel(path.id), modelOf(path.id)))
  }))
