import type { CallTags, ChatRequest, CompletionRequest } from "../Domain/Chat.js"
import type { ResolvedCallPolicy } from "../LlmCallPolicy.js"
import type { Call } from "./Call.js"
import type { EndpointState } from "./Endpoint.js"
import { structuredFields } from "./Structured.js"

/**
 * Headers every request carries: the role and question (the simulator and logs read them) and a fairness key for
 * gateways that share servers fairly between flows: the call policy's key (a tenant), else the run id.
 */
export const tagHeaders = (tags: CallTags, policy: ResolvedCallPolicy): Record<string, string> => {
  const fairness = policy.fairnessKey ?? tags.runId
  return {
    "x-deepnote-role": tags.role,
    ...(tags.questionId === undefined ? {} : { "x-deepnote-question": tags.questionId }),
    ...(fairness === undefined ? {} : { "x-deepnote-fairness-key": fairness })
  }
}

/** vLLM's `priority` (lower is served sooner), unless the endpoint refused it. */
export const priorityField = (e: EndpointState, policy: ResolvedCallPolicy) =>
  e.sendPriority ? { priority: policy.priority } : {}

/** The `/v1/chat/completions` request of a chat call, for a given endpoint (its structured-output style, priority). */
export const chatRequest = (request: ChatRequest, model: string, policy: ResolvedCallPolicy): Call["build"] => (e) => {
  const s = request.sampling
  const fields = structuredFields(request.structured, e.structured)
  return {
    structured: Object.keys(fields).length > 0,
    request: {
      path: "/v1/chat/completions",
      stream: request.stream === true,
      headers: tagHeaders(request, policy),
      body: {
        model,
        messages: request.messages,
        temperature: s.temperature,
        top_p: s.topP,
        max_tokens: s.maxTokens,
        seed: s.seed,
        ...priorityField(e, policy),
        ...(request.stream === true ? { stream: true, stream_options: { include_usage: true } } : {}),
        ...fields
      }
    }
  }
}

/** The `/v1/completions` request of a prompt list. */
export const completionRequest = (
  request: CompletionRequest,
  model: string,
  policy: ResolvedCallPolicy
): Call["build"] =>
(e) => ({
  structured: false,
  request: {
    path: "/v1/completions",
    stream: false,
    headers: tagHeaders(request, policy),
    body: {
      model,
      prompt: request.prompts,
      temperature: request.sampling.temperature,
      top_p: request.sampling.topP,
      max_tokens: request.sampling.maxTokens,
      seed: request.sampling.seed,
      ...priorityField(e, policy)
    }
  }
})

/**
 * The `/v1/embeddings` request of a batch of texts: vectors as floats (what vLLM and TEI's OpenAI route both send),
 * `dimensions` only when asked for (a Matryoshka model's shorter vectors; other models refuse it).
 */
export const embeddingsRequest = (
  input: { readonly texts: ReadonlyArray<string>; readonly model: string; readonly dimensions: number | undefined },
  policy: ResolvedCallPolicy
): Call["build"] =>
(e) => ({
  structured: false,
  request: {
    path: "/v1/embeddings",
    stream: false,
    headers: {
      "x-deepnote-role": "embed",
      ...(policy.fairnessKey === undefined ? {} : { "x-deepnote-fairness-key": policy.fairnessKey })
    },
    body: {
      model: input.model,
      input: input.texts,
      encoding_format: "float",
      ...(input.dimensions === undefined ? {} : { dimensions: input.dimensions }),
      ...priorityField(e, policy)
    }
  }
})
