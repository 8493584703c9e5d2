import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ChatCompletion, ChatCompletionRequest, ModelList } from "../Domain/Chat.js"
import { Authentication } from "../Security.js"

/** An OpenAI-compatible facade: any OpenAI client can use DeepNote as a model. */
export class OpenAiApi extends HttpApiGroup.make("openai")
  .add(
    HttpApiEndpoint.post("chatCompletions", "/v1/chat/completions")
      .setPayload(ChatCompletionRequest)
      .addSuccess(ChatCompletion)
      .annotate(
        OpenApi.Description,
        "The last user message is the question. `stream: true` answers with `chat.completion.chunk` events and `[DONE]`. " +
          "The best note, trace and counters are in the `deepnote` field."
      )
  )
  .add(HttpApiEndpoint.get("models", "/v1/models").addSuccess(ModelList))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "OpenAI-compatible")
{}
