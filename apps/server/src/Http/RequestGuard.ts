import { PayloadTooLarge, RequestTimeout, Unavailable } from "@deepnote/api"
import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { ServerSettings } from "../ServerSettings.js"
import { errorResponse, logIfInternal, toApiError } from "./ErrorResponses.js"
import { Lifecycle } from "./Lifecycle.js"

const isUpload = (method: string, url: string) =>
  method === "POST" && (/^\/v1\/collections\/[^/]+\/documents(?:\?|$)/u.test(url) || /^\/v1\/runs(?:\?|$)/u.test(url))

/**
 * The API-wide middleware: refuses requests while draining (503), enforces body limits (413 from Content-Length at
 * once, or while reading a chunked body), applies the request timeout (504), counts in-flight requests, and renders
 * every failure — handler errors, schema decode errors, unknown routes, malformed JSON, defects — as the stable
 * `{ "error": { "code", "message", "field"? } }` body.
 */
export const RequestGuard = HttpApiBuilder.middleware(
  Effect.gen(function*() {
    const lifecycle = yield* Lifecycle
    const { limits } = yield* ServerSettings
    return (app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
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
        return yield* app.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
          Effect.timeoutFail({
            duration: limits.requestTimeout,
            onTimeout: () => RequestTimeout.of(`the request took longer than the server's limit`)
          }),
          Effect.catchAllCause((cause) => {
            const error = toApiError(cause)
            if (error === undefined) return Effect.interrupt
            const shown = error._tag === "PayloadTooLarge" ? PayloadTooLarge.of(limit) : error
            return Effect.as(logIfInternal(shown, cause), errorResponse(shown))
          }),
          lifecycle.track
        )
      })
  })
)
