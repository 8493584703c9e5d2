import { type ChatCompletionRequest, ValidationError } from "@deepnote-rag/api"
import { Effect } from "effect"

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
