import { causeCode, firstDecodeIssue, withoutCredentials } from "@deepnote-rag/core"
import { HttpClient, HttpClientRequest, type HttpClientResponse, type HttpMethod } from "@effect/platform"
import { Duration, Effect, Either, Redacted, Schedule, Schema } from "effect"
import { isTransientStatus } from "../Rerank/RerankError.js"
import { MeiliError } from "./MeiliError.js"
import { MeiliApiError } from "./MeiliReplies.js"

/** Where requests go and how hard they try. */
export interface MeiliTarget {
  readonly host: string
  readonly apiKey?: Redacted.Redacted | undefined
  /** Time limit of one attempt. */
  readonly timeout: Duration.DurationInput
  /** Retries of transient failures (connection errors, timeouts, 408/429/5xx), exponential and jittered. */
  readonly retries: number
  readonly backoff: Duration.DurationInput
}

/** One JSON call of the Meilisearch API, its reply decoded with `reply`; every failure is a one-line `MeiliError`. */
export type MeiliCall = <A, I>(
  method: HttpMethod.HttpMethod,
  path: string,
  reply: Schema.Schema<A, I>,
  body?: unknown
) => Effect.Effect<A, MeiliError>

/** What a refused request means for the operator, when Meilisearch's message alone does not say what to do. */
const hints: Record<string, string> = {
  missing_authorization_header: "this server needs an API key: set DEEPNOTE_MEILI_API_KEY (or --meili-api-key)",
  invalid_api_key: "check DEEPNOTE_MEILI_API_KEY: a wrong key, or one without the actions this command needs"
}

export const meiliCall = (client: HttpClient.HttpClient, target: MeiliTarget): MeiliCall => {
  const host = target.host.replace(/\/+$/, "")
  const shown = withoutCredentials(host)
  const timeout = Duration.decode(target.timeout)
  const policy = Schedule.exponential(target.backoff).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(target.retries))
  )
  const decodeApiError = Schema.decodeUnknownEither(Schema.parseJson(MeiliApiError))

  const refused = (method: string, path: string, response: HttpClientResponse.HttpClientResponse) =>
    Effect.flatMap(response.text.pipe(Effect.orElseSucceed(() => "")), (text) => {
      const api = decodeApiError(text)
      const status = response.status
      if (Either.isLeft(api)) {
        return Effect.fail(
          new MeiliError({
            reason: "api",
            status,
            transient: isTransientStatus(status),
            message: `Meilisearch at ${shown} answered ${method} ${path} with HTTP ${status}: ${
              text.slice(0, 200).replace(/\s+/g, " ")
            }`
          })
        )
      }
      const hint = hints[api.right.code]
      return Effect.fail(
        new MeiliError({
          reason: "api",
          status,
          code: api.right.code,
          transient: isTransientStatus(status),
          message:
            `Meilisearch at ${shown} refused ${method} ${path} (HTTP ${status} ${api.right.code}): ${api.right.message}${
              hint === undefined ? "" : ` — ${hint}`
            }`
        })
      )
    })

  return (method, path, reply, body) => {
    const request = HttpClientRequest.make(method)(`${host}${path}`).pipe(
      HttpClientRequest.acceptJson,
      body === undefined ? (r) => r : HttpClientRequest.bodyUnsafeJson(body),
      target.apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(Redacted.value(target.apiKey))
    )
    const decode = Schema.decodeUnknown(reply)
    return client.execute(request).pipe(
      Effect.flatMap((response): Effect.Effect<unknown, MeiliError> =>
        response.status >= 200 && response.status < 300
          ? Effect.mapError(response.json, (cause) =>
            new MeiliError({
              reason: "reply",
              message: `Meilisearch at ${shown}: ${method} ${path} answered with a body that is not JSON`,
              cause
            }))
          : refused(method, path, response)
      ),
      Effect.catchTags({
        RequestError: (cause) =>
          Effect.fail(
            new MeiliError({
              reason: "unreachable",
              transient: cause.reason === "Transport",
              message: `cannot reach Meilisearch at ${shown} (${
                causeCode(cause.cause) ?? cause.description ?? cause.reason
              })`,
              cause
            })
          ),
        ResponseError: (cause) =>
          Effect.fail(
            new MeiliError({
              reason: "unreachable",
              transient: true,
              message: `Meilisearch at ${shown}: ${method} ${path} failed while reading the reply (${cause.reason})`,
              cause
            })
          )
      }),
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          new MeiliError({
            reason: "unreachable",
            transient: true,
            message: `Meilisearch at ${shown} did not answer ${method} ${path} within ${Duration.format(timeout)}`
          })
      }),
      Effect.retry({ schedule: policy, while: (e) => e.transient }),
      Effect.flatMap((json) =>
        Effect.mapError(decode(json), (e) =>
          new MeiliError({
            reason: "reply",
            message: `unexpected reply from Meilisearch at ${shown} to ${method} ${path}: ${
              firstDecodeIssue(e, "reply")
            }`
          }))
      )
    )
  }
}
