import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/**
 * The body of every error response: `{ "error": { "code", "message", "field"?, "retryAfterSeconds"? } }`. `code` is
 * stable (scripts branch on it); `field` names the offending request field (`topK`, `config.maxStep`, `documents[3].text`).
 */
export const ErrorBody = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  field: Schema.optional(Schema.String),
  retryAfterSeconds: Schema.optional(Schema.Int)
})
export type ErrorBody = typeof ErrorBody.Type

const body = (
  code: string,
  message: string,
  extra: { readonly field?: string | undefined; readonly retryAfterSeconds?: number } = {}
): ErrorBody => ({
  code,
  message,
  ...(extra.field === undefined ? {} : { field: extra.field }),
  ...(extra.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: extra.retryAfterSeconds })
})

/** 400 `validation_error`: the request does not match the schema, or a value is out of range. */
export class ValidationError extends Schema.TaggedError<ValidationError>()(
  "ValidationError",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 400 })
) {
  static readonly of = (message: string, field?: string) =>
    new ValidationError({ error: body("validation_error", message, { field }) })
  override get message(): string {
    return this.error.message
  }
}

/** 400 `malformed_body`: the body is not valid JSON / JSONL. */
export class MalformedBody extends Schema.TaggedError<MalformedBody>()(
  "MalformedBody",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 400 })
) {
  static readonly of = (message: string, field?: string) =>
    new MalformedBody({ error: body("malformed_body", message, { field }) })
  override get message(): string {
    return this.error.message
  }
}

/** 401 `unauthorized`: no API key, or an unknown or revoked one. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 401 })
) {
  static readonly of = (message = "a valid API key is required: Authorization: Bearer dn_…") =>
    new Unauthorized({ error: body("unauthorized", message) })
  override get message(): string {
    return this.error.message
  }
}

/** 404 `not_found` (`model_not_found` for an unknown model): also what another tenant's ids get. */
export class NotFound
  extends Schema.TaggedError<NotFound>()("NotFound", { error: ErrorBody }, HttpApiSchema.annotations({ status: 404 }))
{
  static readonly of = (message: string, code = "not_found") => new NotFound({ error: body(code, message) })
  override get message(): string {
    return this.error.message
  }
}

/**
 * 405 `method_not_allowed`: the path exists but not with this method (`PUT /v1/runs`); `allow` lists the methods it
 * takes, which the response also carries as the `Allow` header.
 */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()(
  "MethodNotAllowed",
  { error: ErrorBody, allow: Schema.Array(Schema.String) },
  HttpApiSchema.annotations({ status: 405 })
) {
  static readonly of = (method: string, path: string, allow: ReadonlyArray<string>) =>
    new MethodNotAllowed({
      error: body("method_not_allowed", `${method} is not allowed on ${path} (it takes ${allow.join(", ")})`),
      allow
    })
  override get message(): string {
    return this.error.message
  }
}

/** 409 `conflict`: the resource is in a state that forbids the request (run already running, resume refused). */
export class Conflict
  extends Schema.TaggedError<Conflict>()("Conflict", { error: ErrorBody }, HttpApiSchema.annotations({ status: 409 }))
{
  static readonly of = (message: string) => new Conflict({ error: body("conflict", message) })
  override get message(): string {
    return this.error.message
  }
}

/** 413 `payload_too_large`: the body exceeds the endpoint's limit. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 413 })
) {
  static readonly of = (limitBytes: number) =>
    new PayloadTooLarge({ error: body("payload_too_large", `the request body exceeds ${limitBytes} bytes`) })
  override get message(): string {
    return this.error.message
  }
}

/** 429 `rate_limited` / `too_many_runs`: a per-tenant limit; retry after `retryAfterSeconds` (also the Retry-After header). */
export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 429 })
) {
  static readonly of = (message: string, retryAfterSeconds: number, code = "rate_limited") =>
    new RateLimited({ error: body(code, message, { retryAfterSeconds }) })
  override get message(): string {
    return this.error.message
  }
}

/** 502 `llm_bad_gateway`: the LLM server answered, but badly (an error status or a reply that cannot be used). */
export class BadGateway extends Schema.TaggedError<BadGateway>()(
  "BadGateway",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 502 })
) {
  static readonly of = (message: string, code = "llm_bad_gateway") => new BadGateway({ error: body(code, message) })
  override get message(): string {
    return this.error.message
  }
}

/** 503 `overloaded` / `shutting_down` / `not_ready` / `llm_unavailable`: the server is saturated or stopping; retry later. */
export class Unavailable extends Schema.TaggedError<Unavailable>()(
  "Unavailable",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 503 })
) {
  static readonly of = (message: string, retryAfterSeconds = 1, code = "overloaded") =>
    new Unavailable({ error: body(code, message, { retryAfterSeconds }) })
  override get message(): string {
    return this.error.message
  }
}

/** 504 `timeout`: the request took longer than the server's request timeout. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()(
  "RequestTimeout",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 504 })
) {
  static readonly of = (message: string) => new RequestTimeout({ error: body("timeout", message) })
  override get message(): string {
    return this.error.message
  }
}

/** 500 `internal_error` (or `engine_error`, `retrieval_error`): the server failed; the message says what. */
export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  { error: ErrorBody },
  HttpApiSchema.annotations({ status: 500 })
) {
  static readonly of = (message: string, code = "internal_error") => new InternalError({ error: body(code, message) })
  override get message(): string {
    return this.error.message
  }
}

/** Every error the API answers with. */
export type ApiError =
  | ValidationError
  | MalformedBody
  | Unauthorized
  | NotFound
  | MethodNotAllowed
  | Conflict
  | PayloadTooLarge
  | RateLimited
  | BadGateway
  | Unavailable
  | RequestTimeout
  | InternalError

/** The HTTP status of each API error (the same as its schema annotation). */
export const errorStatus: Readonly<Record<ApiError["_tag"], number>> = {
  ValidationError: 400,
  MalformedBody: 400,
  Unauthorized: 401,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  RateLimited: 429,
  BadGateway: 502,
  Unavailable: 503,
  RequestTimeout: 504,
  InternalError: 500
}

/** True for the errors this API defines. */
export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in errorStatus &&
  "error" in u
