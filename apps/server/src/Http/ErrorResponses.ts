import {
  type ApiError,
  errorStatus,
  InternalError,
  isApiError,
  MalformedBody,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  ValidationError
} from "@deepnote-rag/api"
import { withoutAbsentAlternatives } from "@deepnote-rag/core"
import { StoreError } from "@deepnote-rag/store"
import { HttpApiError, HttpServerError, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option, type ParseResult } from "effect"
import { openAiErrorOf } from "../OpenAi/OpenAiErrors.js"
import type { AllowedMethods } from "./AllowedMethods.js"
import { storeFailure } from "./StoreFailure.js"

/** `["documents", 3, "text"]` → `documents[3].text`. */
export const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (out, key) => typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`,
    ""
  )

/**
 * The first issue of a decode failure as a `validation_error` naming its field (under `prefix`); an optional field's
 * "could also be absent" issues are not counted (`withoutAbsentAlternatives`).
 */
export const validationFromIssues = (
  all: ReadonlyArray<ParseResult.ArrayFormatterIssue>,
  prefix: ReadonlyArray<PropertyKey> = []
): ValidationError => {
  const issues = withoutAbsentAlternatives(all)
  const first = issues[0]
  if (first === undefined) return ValidationError.of("the request does not match the schema")
  const field = fieldPath([...prefix, ...first.path])
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : ""
  return ValidationError.of(
    field === "" ? `${first.message}${more}` : `${field}: ${first.message}${more}`,
    field === "" ? undefined : field
  )
}

const describeDefect = (defect: unknown): ApiError | undefined => {
  // the store's failure where a caller could not type it (the journal and event log inside a question): answered like
  // a typed store failure
  if (defect instanceof StoreError) return storeFailure(defect)
  if (HttpServerError.isServerError(defect) && defect._tag === "RequestError" && defect.reason === "Decode") {
    const cause = defect.cause
    if (cause instanceof Error && cause.message === "maxBytes exceeded") return PayloadTooLarge.of(0)
    if (cause instanceof SyntaxError) return MalformedBody.of(`the body is not valid JSON: ${cause.message}`)
  }
  return undefined
}

/** Maps any failure of a request to an API error; `undefined` for interruptions (the client went away). */
export const toApiError = (cause: Cause.Cause<unknown>, allowedMethods: AllowedMethods): ApiError | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (isApiError(error)) return error
    if (error instanceof HttpApiError.HttpApiDecodeError) return validationFromIssues(error.issues)
    if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
      const { method, url } = error.request
      const path = url.split("?", 1)[0] ?? url
      const allow = allowedMethods(path)
      return allow.length > 0 ? MethodNotAllowed.of(method, path, allow) : NotFound.of(`no route for ${method} ${url}`)
    }
    if (HttpServerError.isServerError(error) && error._tag === "RequestError") {
      return describeDefect(error) ?? MalformedBody.of(error.message)
    }
    return InternalError.of(`unexpected failure: ${String(error)}`)
  }
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) {
    return describeDefect(defect.value) ?? InternalError.of("internal error (logged on the server)")
  }
  return Cause.isInterruptedOnly(cause) ? undefined : InternalError.of("internal error (logged on the server)")
}

const errorHeaders = (error: ApiError, extraHeaders: Record<string, string>): Record<string, string> => ({
  ...extraHeaders,
  ...(error.error.retryAfterSeconds === undefined ? {} : { "retry-after": String(error.error.retryAfterSeconds) }),
  ...(error._tag === "Unauthorized" ? { "www-authenticate": "Bearer" } : {}),
  ...(error._tag === "MethodNotAllowed" ? { allow: error.allow.join(", ") } : {})
})

/** The JSON response of an API error, with `Retry-After` and `WWW-Authenticate` where they apply. */
export const errorResponse = (error: ApiError, extraHeaders: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ _tag: error._tag, error: error.error }, {
    status: errorStatus[error._tag],
    headers: errorHeaders(error, extraHeaders)
  })

/** The same error in OpenAI's shape (`{ "error": { "message", "type", "param", "code" } }`), same status and headers. */
export const openAiErrorResponse = (error: ApiError, extraHeaders: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(openAiErrorOf(error), {
    status: errorStatus[error._tag],
    headers: errorHeaders(error, extraHeaders)
  })

/** Logs the failures that became a 500 (the client only sees a generic message). */
export const logIfInternal = (error: ApiError, cause: Cause.Cause<unknown>) =>
  error._tag === "InternalError" ? Effect.logError("request failed", Cause.pretty(cause)) : Effect.void
