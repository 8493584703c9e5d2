import { type ApiError, errorStatus } from "@deepnote-rag/api"

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
