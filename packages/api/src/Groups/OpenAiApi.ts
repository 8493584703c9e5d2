import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ChatCompletion, ChatCompletionRequest, Model, ModelList } from "../Domain/Chat.js"
import { NotFound } from "../Errors.js"
import { Authentication } from "../Security.js"

/** An OpenAI-compatible facade: any OpenAI client can use DeepNote as a model. */
export class OpenAiApi extends HttpApiGroup.make("openai")
  .add(
    HttpApiEndpoint.post("chatCompletions", "/v1/chat/completions")
      .setPayload(ChatCompletionRequest)
      .addSuccess(ChatCompletion)
      .annotate(
        OpenApi.Description,
        "The last user message is the question. `stream: true` answers with `chat.completion.chunk` events and `[DONE]`: " +
          "the note's evolution as `reasoning_content` deltas, the answer as `content` deltas as it is written. " +
          "`usage` is the sum over every LLM call of the question; the best note, trace, counters and usage by role are " +
          "in the `deepnote` field. Errors have OpenAI's shape `{ error: { message, type, param, code } }`."
      )
  )
  .add(HttpApiEndpoint.get("models", "/v1/models").addSuccess(ModelList))
  .add(
    HttpApiEndpoint.get("model")`/v1/models/${HttpApiSchema.param("id", Schema.String)}`.addSuccess(Model).addError(
      NotFound
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "OpenAI-compatible")
{}
