import {
  type ApiError,
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatMessage,
  type ConfigPatch,
  DeepNoteExtension,
  errorStatus,
  NotFound,
  ValidationError
} from "@deepnote/api"
import { Profile } from "@deepnote/core"
import { Effect, Schema } from "effect"
import type { AskAnswer } from "../Ask/Ask.js"
import { usageByRole, usageOf } from "./Usage.js"

/** The model ids the facade answers to: `deepnote` (the server's default profile) and `deepnote-<profile>`. */
export const modelIds: ReadonlyArray<string> = ["deepnote", ...Profile.literals.map((p) => `deepnote-${p}`)]

/** The profile a model id selects (`undefined`: the request's or server's default), or 404 `model_not_found`. */
export const profileOfModel = (model: string): Effect.Effect<Profile | undefined, NotFound> => {
  if (model === "deepnote") return Effect.succeed(undefined)
  const profile = model.startsWith("deepnote-") ? model.slice("deepnote-".length) : ""
  return Schema.is(Profile)(profile)
    ? Effect.succeed(profile)
    : Effect.fail(
      NotFound.of(`The model \`${model}\` does not exist; use one of ${modelIds.join(", ")}`, "model_not_found")
    )
}

const textOf = (message: ChatMessage): string =>
  typeof message.content === "string"
    ? message.content
    : (message.content ?? []).flatMap((part) => part.type === "text" && part.text !== undefined ? [part.text] : [])
      .join("\n")

/** The question: the text of the last user message. */
export const questionOf = (messages: ReadonlyArray<ChatMessage>): Effect.Effect<string, ValidationError> => {
  const index = messages.map((m) => m.role).lastIndexOf("user")
  const text = index < 0 ? "" : textOf(messages[index]!).trim()
  return text === ""
    ? Effect.fail(
      ValidationError.of(
        "messages: the last user message is missing or empty",
        index < 0 ? "messages" : `messages[${index}].content`
      )
    )
    : Effect.succeed(text)
}

/** DeepNote's extension field: best note, trace, counters and usage by role. */
export const extensionOf = ({ record, usage }: AskAnswer): typeof DeepNoteExtension.Type => ({
  ...(record.result.bestNote === undefined ? {} : { bestNote: record.result.bestNote }),
  stopReason: record.result.stopReason,
  trace: record.result.trace,
  counters: record.result.counters,
  ...(record.collection === undefined ? {} : { collection: record.collection }),
  elapsedMs: record.result.elapsedMs,
  usageByRole: usageByRole(usage)
})

/** The extension as JSON (for stream chunks). */
export const encodeExtension = Schema.encodeSync(DeepNoteExtension)

export const completionOf = (
  id: string,
  created: number,
  model: string,
  answer: AskAnswer
): ChatCompletion => ({
  id,
  object: "chat.completion",
  created,
  model,
  choices: [{
    index: 0,
    message: { role: "assistant", content: answer.record.result.answer.text },
    finish_reason: "stop"
  }],
  usage: usageOf(answer.usage),
  deepnote: extensionOf(answer)
})

/** The request's knobs with the model's profile on top. */
export const configPatchFor = (profile: Profile | undefined, patch: ConfigPatch | undefined): ConfigPatch | undefined =>
  profile === undefined ? patch : { ...patch, profile }

const refuse = (param: string, message: string) => Effect.fail(ValidationError.of(`${param}: ${message}`, param))

const outOfRange = (value: number | undefined, min: number, max: number) =>
  value !== undefined && (value < min || value > max)

/**
 * Refuses, by name, what the pipeline cannot honour (one answer, no tools, no log-probabilities, text only) and
 * sampling values outside OpenAI's ranges; the values in range are accepted and ignored (the run config governs the
 * roles' sampling).
 */
export const checkParameters = (payload: ChatCompletionRequest): Effect.Effect<void, ValidationError> => {
  if (payload.n !== undefined && payload.n !== 1) return refuse("n", "only n=1 is supported (one answer per question)")
  if (payload.tools !== undefined && payload.tools.length > 0) return refuse("tools", "tools are not supported")
  if (payload.functions !== undefined && payload.functions.length > 0) {
    return refuse("functions", "functions are not supported")
  }
  if (payload.tool_choice !== undefined && payload.tool_choice !== "none") {
    return refuse("tool_choice", "tool_choice is not supported (no tools)")
  }
  if (payload.function_call !== undefined && payload.function_call !== "none") {
    return refuse("function_call", "function_call is not supported (no functions)")
  }
  if (payload.logprobs === true) return refuse("logprobs", "log-probabilities are not supported")
  if (payload.top_logprobs !== undefined && payload.top_logprobs > 0) {
    return refuse("top_logprobs", "log-probabilities are not supported")
  }
  if (payload.response_format !== undefined && payload.response_format.type !== "text") {
    return refuse("response_format", `type "${payload.response_format.type}" is not supported (only "text")`)
  }
  if (outOfRange(payload.temperature, 0, 2)) return refuse("temperature", "must be between 0 and 2")
  if (outOfRange(payload.top_p, 0, 1)) return refuse("top_p", "must be between 0 and 1")
  if (outOfRange(payload.presence_penalty, -2, 2)) return refuse("presence_penalty", "must be between -2 and 2")
  if (outOfRange(payload.frequency_penalty, -2, 2)) return refuse("frequency_penalty", "must be between -2 and 2")
  if (payload.max_tokens !== undefined && payload.max_tokens < 1) return refuse("max_tokens", "must be at least 1")
  if (payload.max_completion_tokens !== undefined && payload.max_completion_tokens < 1) {
    return refuse("max_completion_tokens", "must be at least 1")
  }
  return Effect.void
}

/** OpenAI's error `type` for an API error's status. */
const openAiType = (status: number): string =>
  status === 401
    ? "authentication_error"
    : status === 403
    ? "permission_error"
    : status === 429
    ? "rate_limit_error"
    : status >= 500
    ? "server_error"
    : "invalid_request_error"

/** An API error in OpenAI's shape: `{ "error": { "message", "type", "param", "code" } }`. */
export const openAiErrorOf = (error: ApiError) => ({
  error: {
    message: error.error.message,
    type: openAiType(errorStatus[error._tag]),
    param: error.error.field ?? null,
    code: error.error.code
  }
})

/** The routes that answer errors in OpenAI's shape (the native `/v1/*` API keeps its own). */
export const isOpenAiRoute = (url: string): boolean => /^\/v1\/(?:chat\/completions|models)(?:[/?]|$)/u.test(url)
