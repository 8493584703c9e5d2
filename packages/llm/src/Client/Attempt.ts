import { firstDecodeIssue } from "@deepnote-rag/core"
import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Clock, Context, Effect, Either, type ParseResult, Schema, Stream } from "effect"
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
import type { Transport } from "./Transport.js"

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
  /** The base URL requests go to, as errors show it: without credentials (those travel in `headers`). */
  readonly endpoint: string
  readonly path: "/v1/chat/completions" | "/v1/completions" | "/v1/embeddings"
  readonly body: Record<string, unknown>
  readonly headers: Record<string, string>
  readonly stream: boolean
  readonly timeoutMs: number
  /** With `stream`: each delta as it arrives. */
  readonly onDelta?: ((delta: StreamDelta) => void) | undefined
}

const decodeChat = Schema.decodeUnknownEither(Schema.parseJson(ChatCompletion))
const decodeText = Schema.decodeUnknownEither(Schema.parseJson(TextCompletion))
const decodeEmbeddings = Schema.decodeUnknownEither(Schema.parseJson(EmbeddingList))

/** A reply's decoding failure in one line (`firstDecodeIssue`). */
const firstIssue = (error: ParseResult.ParseError): string => firstDecodeIssue(error, "reply")

/** The start of a reply, quoted on one line (an HTML error page, a truncated body). */
const replyStart = (text: string): string => JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text)

const httpError = (endpoint: string, status: number, retryAfter: string | undefined, body: string, nowMs: number) => {
  const detail = errorMessage(body)
  const message = status === 400 && isContextTooLong(detail)
    ? `the prompt does not fit the model's context (400 from ${endpoint}): ${detail}`
    : status === 401 || status === 403
    ? `the LLM server refused the credentials (${status} from ${endpoint}); check DEEPNOTE_LLM_API_KEY, or the user and password in the server's URL: ${detail}`
    : status === 404
    ? `not found on ${endpoint} (404; is the model name right?): ${detail}`
    : `${status} from ${endpoint}: ${detail}`
  return new LlmHttpError({ endpoint, status, message, retryAfterMs: parseRetryAfter(retryAfter, nowMs) })
}

const malformed = (endpoint: string, what: string): LlmAttemptError =>
  new LlmMalformedReply({ endpoint, message: `unreadable reply from ${endpoint}: ${what.slice(0, 400)}` })

const readFailed = (endpoint: string, cause: unknown): LlmAttemptError =>
  new LlmTransportError({ endpoint, message: `connection to ${endpoint} failed while reading the reply`, cause })

/** A whole (not streamed) reply's body, decoded synchronously: one parse, no Effect steps per field. */
const decodeReply = (req: AttemptRequest, text: string): Effect.Effect<AttemptReply, LlmAttemptError> => {
  if (req.path === "/v1/embeddings") {
    return Either.match(decodeEmbeddings(text), {
      onLeft: (e) => Effect.fail(malformed(req.endpoint, `not an embeddings list (${firstIssue(e)})`)),
      onRight: (list) =>
        Effect.succeed({
          texts: [],
          finishReason: undefined,
          model: list.model,
          usage: list.usage,
          embeddings: list.data
        })
    })
  }
  if (req.path === "/v1/chat/completions") {
    return Either.match(decodeChat(text), {
      onLeft: (e) =>
        Effect.fail(malformed(req.endpoint, `not a chat completion (${firstIssue(e)}); it began ${replyStart(text)}`)),
      onRight: (c) =>
        Effect.succeed({
          texts: [c.choices[0].message.content ?? ""],
          finishReason: c.choices[0].finish_reason ?? undefined,
          model: c.model,
          usage: c.usage
        })
    })
  }
  return Either.match(decodeText(text), {
    onLeft: (e) =>
      Effect.fail(malformed(req.endpoint, `not a text completion (${firstIssue(e)}); it began ${replyStart(text)}`)),
    onRight: (c) => {
      const sorted = [...c.choices].sort((a, b) => a.index - b.index)
      return Effect.succeed({
        texts: sorted.map((x) => x.text),
        finishReason: sorted[0]?.finish_reason ?? undefined,
        model: c.model,
        usage: c.usage
      })
    }
  })
}

/** A streamed (SSE) attempt through the HttpClient, its deadline covering the whole stream. */
const streamed = (
  http: HttpClient.HttpClient,
  req: AttemptRequest,
  headers: Record<string, string>,
  now: () => number
): Effect.Effect<AttemptReply, LlmAttemptError> =>
  Effect.gen(function*() {
    const request = HttpClientRequest.post(`${req.endpoint}${req.path}`).pipe(
      HttpClientRequest.setHeaders(headers),
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
      return yield* Effect.fail(httpError(req.endpoint, res.status, res.headers["retry-after"], body, now()))
    }
    const s = yield* foldChatStream(
      Stream.mapError(res.stream, (cause) => readFailed(req.endpoint, cause)),
      now,
      (what) => malformed(req.endpoint, what),
      req.onDelta
    )
    return s.done || s.finishReason !== undefined
      ? { texts: [s.content], finishReason: s.finishReason, model: s.model, usage: s.usage }
      : yield* Effect.fail(readFailed(req.endpoint, "the stream ended before [DONE]"))
  }).pipe((attempt) =>
    withDeadline(attempt, req.timeoutMs, () =>
      new LlmTimeoutError({
        endpoint: req.endpoint,
        timeoutMs: req.timeoutMs,
        message: `no reply from ${req.endpoint} within ${req.timeoutMs} ms`
      }))
  )

/**
 * One HTTP attempt with its own timeout (undici in platform-node has none); errors are classified for retry. The
 * request carries `traceparent` from the current span (the attempt span), which gets the response status.
 */
export const runAttempt = (transport: Transport, req: AttemptRequest): Effect.Effect<AttemptReply, LlmAttemptError> =>
  Effect.withFiberRuntime((fiber) => {
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const now = () => clock.unsafeCurrentTimeMillis()
    const span = fiber.currentSpan?._tag === "Span" ? fiber.currentSpan : undefined
    const headers = span === undefined
      ? req.headers
      : { traceparent: `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`, ...req.headers }
    if (req.stream) return streamed(transport.http, req, headers, now)
    return Effect.flatMap(
      transport.exchange({
        endpoint: req.endpoint,
        path: req.path,
        headers,
        body: req.body,
        timeoutMs: req.timeoutMs
      }),
      (reply) => {
        span?.attribute("http.response.status_code", reply.status)
        return reply.status < 200 || reply.status >= 300
          ? Effect.fail(httpError(req.endpoint, reply.status, reply.retryAfter, reply.text, now()))
          : decodeReply(req, reply.text)
      }
    )
  })
