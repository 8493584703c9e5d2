import { Api, type ApiError, PayloadTooLarge, RequestTimeout, Unavailable, ValidationError } from "@deepnote-rag/api"
import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { isOpenAiRoute } from "../OpenAi/OpenAiErrors.js"
import { ServerSettings } from "../ServerSettings.js"
import { allowedMethodsOf } from "./AllowedMethods.js"
import {
  errorResponse as nativeErrorResponse,
  logIfInternal,
  openAiErrorResponse,
  toApiError
} from "./ErrorResponses.js"
import { jsonDepth, maxJsonDepth } from "./JsonDepth.js"
import { Lifecycle } from "./Lifecycle.js"
import { drainBody, lingerOnDestroy } from "./LingeringBody.js"
import { currentRateLimit, type RateLimitState, requestIdOf, responseHeaders } from "./ResponseHeaders.js"

const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH"

const isJson = (contentType: string | undefined) => contentType === undefined || contentType.includes("json")

const isUpload = (method: string, url: string) =>
  method === "POST" && (/^\/v1\/collections\/[^/]+\/documents(?:\?|$)/u.test(url) || /^\/v1\/runs(?:\?|$)/u.test(url))

/**
 * The API-wide middleware: refuses requests while draining (503), enforces body limits (413 from Content-Length at
 * once, or while reading a chunked body), applies the request timeout (504), counts in-flight requests, and renders
 * every failure — handler errors, schema decode errors, unknown routes, malformed JSON, defects — as the stable
 * `{ "error": { "code", "message", "field"? } }` body (OpenAI's `{ "error": { "message", "type", "param", "code" } }`
 * on the OpenAI-compatible routes). Every response carries `x-request-id` (the client's, or a new one) and, once the
 * tenant was counted, OpenAI's `x-ratelimit-*-requests` headers; one of several processes adds `x-deepnote-process`.
 */

type ErrorRenderer = (error: ApiError, extra?: Record<string, string>) => HttpServerResponse.HttpServerResponse

export const RequestGuard = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const lifecycle = yield* Lifecycle
    const { limits, processId } = yield* ServerSettings
    const processHeader = processId === undefined ? {} : { "x-deepnote-process": String(processId) }
    // a wrong method on a known path is 405, not 404 (see AllowedMethods)
    const allowedMethods = allowedMethodsOf(Api)

    const guarded = <E, R>(
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      request: HttpServerRequest.HttpServerRequest,
      errorResponse: ErrorRenderer
    ) =>
      Effect.gen(function*() {
        if (yield* lifecycle.draining) {
          if (request.url !== "/healthz") {
            return errorResponse(Unavailable.of("the server is shutting down", 1, "shutting_down"), {
              connection: "close"
            })
          }
        }
        const limit = isUpload(request.method, request.url) ? limits.maxUploadBytes : limits.maxBodyBytes
        const declared = Number(request.headers["content-length"] ?? "0")
        if (Number.isFinite(declared) && declared > limit) {
          return errorResponse(PayloadTooLarge.of(limit), { connection: "close" })
        }
        if (request.headers["content-length"] === undefined && hasBody(request.method)) lingerOnDestroy(request)
        const tooDeep = hasBody(request.method) && !isUpload(request.method, request.url) &&
            isJson(request.headers["content-type"])
          ? request.text.pipe(
            Effect.map((text) => jsonDepth(text) > maxJsonDepth),
            Effect.orElseSucceed(() => false), // an unreadable body is the handler's to report
            HttpIncomingMessage.withMaxBodySize(Option.some(limit))
          )
          : Effect.succeed(false)
        if (yield* tooDeep) {
          return errorResponse(ValidationError.of(`the JSON body is nested deeper than ${maxJsonDepth} levels`))
        }
        return yield* app.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
          Effect.timeoutFail({
            duration: limits.requestTimeout,
            onTimeout: () => RequestTimeout.of(`the request took longer than the server's limit`)
          }),
          Effect.catchAllCause((cause) => {
            const error = toApiError(cause, allowedMethods)
            if (error === undefined) return Effect.interrupt
            if (error._tag === "PayloadTooLarge") {
              return Effect.as(
                drainBody(request, "10 seconds"),
                errorResponse(PayloadTooLarge.of(limit), { connection: "close" })
              )
            }
            return Effect.as(logIfInternal(error, cause), errorResponse(error))
          }),
          lifecycle.track
        )
      })

    return (app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requestId = requestIdOf(request.headers["x-request-id"])
        const rate: { state: RateLimitState | undefined } = { state: undefined }
        const errorResponse: ErrorRenderer = isOpenAiRoute(request.url) ? openAiErrorResponse : nativeErrorResponse
        const response = yield* guarded(app, request, errorResponse).pipe(Effect.locally(currentRateLimit, rate))
        return HttpServerResponse.setHeaders(response, { ...responseHeaders(requestId, rate), ...processHeader })
      })
  })
)
