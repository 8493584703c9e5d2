import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Effect, Option, ParseResult, Schema, Stream } from "effect"
import {
  type LlmAttemptError,
  LlmHttpError,
  LlmMalformedReply,
  LlmTimeoutError,
  LlmTransportError
} from "../Domain/LlmError.js"
import { ChatCompletion, EmbeddingList, errorMessage, TextCompletion, type WireUsage } from "../Domain/Wire.js"
import { parseRetryAfter } from "./Backoff.js"
import { withDeadline } from "./Deadline.js"
import { foldChatStream, type StreamDelta } from "./Sse.js"
import { isContextTooLong } from "./Structured.js"

/** What one successful attempt returns, whatever the endpoint kind. */
export interface AttemptReply {
  /** One text per choice, in index order (chat: one). */
  readonly texts: ReadonlyArray<string>
  readonly finishReason: string | undefined
  readonly model: string | undefined
  readonly usage: WireUsage | undefined | null
  /** `/v1/embeddings`: the vectors as the server listed them (`index` says whose text each is). */
  readonly embeddings?: EmbeddingList["data"] | undefined
}

export interface AttemptRequest {
  readonly endpoint: string
  readonly path: "/v1/chat/completions" | "/v1/completions" | "/v1/embeddings"
  readonly body: Record<string, unknown>
  readonly headers: Record<string, string>
  readonly stream: boolean
  readonly timeoutMs: number
  /** With `stream`: each delta as it arrives. */
  readonly onDelta?: ((delta: StreamDelta) => void) | undefined
}

const decodeChat = Schema.decodeUnknown(Schema.parseJson(ChatCompletion))
const decodeText = Schema.decodeUnknown(Schema.parseJson(TextCompletion))
const decodeEmbeddings = Schema.decodeUnknown(Schema.parseJson(EmbeddingList))

/** A decoding failure in one line: the first issue's path and message (a vector's field, not the whole tree). */
const firstIssue = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  return issue === undefined ? error.message : `${issue.path.join(".") || "reply"}: ${issue.message}`
}

const httpError = (endpoint: string, res: HttpClientResponse.HttpClientResponse, body: string, nowMs: number) => {
  const detail = errorMessage(body)
  const message = res.status === 400 && isContextTooLong(detail)
    ? `the prompt does not fit the model's context (400 from ${endpoint}): ${detail}`
    : res.status === 401 || res.status === 403
    ? `the LLM server refused the credentials (${res.status} from ${endpoint}); check DEEPNOTE_LLM_API_KEY: ${detail}`
    : res.status === 404
    ? `not found on ${endpoint} (404; is the model name right?): ${detail}`
    : `${res.status} from ${endpoint}: ${detail}`
  return new LlmHttpError({
    endpoint,
    status: res.status,
    message,
    retryAfterMs: parseRetryAfter(res.headers["retry-after"], nowMs)
  })
}

const readReply = (
  req: AttemptRequest,
  res: HttpClientResponse.HttpClientResponse,
  now: () => number
): Effect.Effect<AttemptReply, LlmAttemptError> => {
  const malformed = (what: string): LlmAttemptError =>
    new LlmMalformedReply({
      endpoint: req.endpoint,
      message: `unreadable reply from ${req.endpoint}: ${what.slice(0, 300)}`
    })
  const transport = (cause: unknown): LlmAttemptError =>
    new LlmTransportError({
      endpoint: req.endpoint,
      message: `connection to ${req.endpoint} failed while reading the reply`,
      cause
    })
  if (req.stream) {
    return foldChatStream(Stream.mapError(res.stream, transport), now, malformed, req.onDelta).pipe(
      Effect.flatMap((s) =>
        s.done || s.finishReason !== undefined
          ? Effect.succeed({ texts: [s.content], finishReason: s.finishReason, model: s.model, usage: s.usage })
          : Effect.fail(transport("the stream ended before [DONE]"))
      )
    )
  }
  return res.text.pipe(
    Effect.mapError(transport),
    Effect.flatMap((text) =>
      req.path === "/v1/embeddings"
        ? decodeEmbeddings(text).pipe(
          Effect.mapError((e) => malformed(`not an embeddings list (${firstIssue(e)})`)),
          Effect.map((list) => ({
            texts: [],
            finishReason: undefined,
            model: list.model,
            usage: list.usage,
            embeddings: list.data
          }))
        )
        : req.path === "/v1/chat/completions"
        ? decodeChat(text).pipe(
          Effect.mapError((e) => malformed(`${e.message} in ${text}`)),
          Effect.map((c) => ({
            texts: [c.choices[0].message.content ?? ""],
            finishReason: c.choices[0].finish_reason ?? undefined,
            model: c.model,
            usage: c.usage
          }))
        )
        : decodeText(text).pipe(
          Effect.mapError((e) => malformed(`${e.message} in ${text}`)),
          Effect.map((c) => {
            const sorted = [...c.choices].sort((a, b) => a.index - b.index)
            return {
              texts: sorted.map((x) => x.text),
              finishReason: sorted[0]?.finish_reason ?? undefined,
              model: c.model,
              usage: c.usage
            }
          })
        )
    )
  )
}

/** One HTTP attempt with its own timeout (undici in platform-node has none); errors are classified for retry. */
export const runAttempt = (
  http: HttpClient.HttpClient,
  req: AttemptRequest
): Effect.Effect<AttemptReply, LlmAttemptError> =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const span = yield* Effect.option(Effect.currentSpan)
    const traceparent = Option.match(span, {
      onNone: () => ({}),
      onSome: (s) => ({ traceparent: `00-${s.traceId}-${s.spanId}-${s.sampled ? "01" : "00"}` })
    })
    const request = HttpClientRequest.post(`${req.endpoint}${req.path}`).pipe(
      HttpClientRequest.setHeaders({ ...traceparent, ...req.headers }),
      HttpClientRequest.bodyUnsafeJson(req.body)
    )
    const res = yield* http.execute(request).pipe(
      Effect.mapError((cause) =>
        new LlmTransportError({
          endpoint: req.endpoint,
          message: `cannot reach ${req.endpoint}: ${cause.message}`,
          cause
        })
      )
    )
    yield* Effect.annotateCurrentSpan("http.response.status_code", res.status)
    if (res.status < 200 || res.status >= 300) {
      const body = yield* res.text.pipe(Effect.orElseSucceed(() => ""))
      return yield* Effect.fail(httpError(req.endpoint, res, body, now()))
    }
    return yield* readReply(req, res, now)
  }).pipe((attempt) =>
    withDeadline(attempt, req.timeoutMs, () =>
      new LlmTimeoutError({
        endpoint: req.endpoint,
        timeoutMs: req.timeoutMs,
        message: `no reply from ${req.endpoint} within ${req.timeoutMs} ms`
      }))
  )
