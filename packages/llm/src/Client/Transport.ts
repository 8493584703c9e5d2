import { HttpClient, HttpClientRequest } from "@effect/platform"
import type * as Undici from "@effect/platform-node/Undici"
import { Effect } from "effect"
import { type LlmAttemptError, LlmTimeoutError, LlmTransportError } from "../Domain/LlmError.js"
import { withDeadline } from "./Deadline.js"

/** What one non-streamed attempt needs sent: the endpoint's base URL, the path, the headers and the JSON body. */
export interface Outgoing {
  /** The base URL, without credentials (those travel in `headers`). */
  readonly endpoint: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: Record<string, unknown>
  readonly timeoutMs: number
}

/** A non-streamed reply: its status, `Retry-After` and body (an error reply's body is "" when it cannot be read). */
export interface Exchanged {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly text: string
}

/**
 * How attempts reach the servers. `exchange` is one request and its whole reply within the attempt's deadline
 * (`LlmTimeoutError` past it; the request is aborted), failures classified as the attempt reports them; `http` serves
 * streamed (SSE) attempts.
 */
export interface Transport {
  readonly http: HttpClient.HttpClient
  readonly exchange: (out: Outgoing) => Effect.Effect<Exchanged, LlmAttemptError>
}

// The HttpClients built by `LlmHttp` (`httpClientLayer`) and the undici dispatcher each sends through.
const dispatchers = new WeakMap<HttpClient.HttpClient, Undici.Dispatcher>()

/** Records that `http` sends through `dispatcher` (and nothing else: no request or response mapping). */
export const registerDispatcher = (
  http: HttpClient.HttpClient,
  dispatcher: Undici.Dispatcher
): HttpClient.HttpClient => {
  dispatchers.set(http, dispatcher)
  return http
}

const timeoutError = (out: Outgoing) =>
  new LlmTimeoutError({
    endpoint: out.endpoint,
    timeoutMs: out.timeoutMs,
    message: `no reply from ${out.endpoint} within ${out.timeoutMs} ms`
  })

const unreachable = (out: Outgoing, message: string, cause: unknown) =>
  new LlmTransportError({ endpoint: out.endpoint, message: `cannot reach ${out.endpoint}: ${message}`, cause })

const readFailed = (out: Outgoing, cause: unknown) =>
  new LlmTransportError({
    endpoint: out.endpoint,
    message: `connection to ${out.endpoint} failed while reading the reply`,
    cause
  })

const header = (value: string | Array<string> | undefined): string | undefined =>
  Array.isArray(value) ? value.join(", ") : value

/**
 * Through any `HttpClient` (a test's in-process server, a caller's own client): the platform's request and response,
 * the deadline a fork and a timer (`withDeadline`).
 */
const viaHttpClient = (http: HttpClient.HttpClient) => (out: Outgoing): Effect.Effect<Exchanged, LlmAttemptError> =>
  withDeadline(
    Effect.flatMap(
      http.execute(
        HttpClientRequest.post(`${out.endpoint}${out.path}`).pipe(
          HttpClientRequest.setHeaders(out.headers),
          HttpClientRequest.bodyUnsafeJson(out.body)
        )
      ).pipe(Effect.mapError((cause) => unreachable(out, cause.message, cause))),
      (res) => {
        const ok = res.status >= 200 && res.status < 300
        return Effect.map(
          ok ? Effect.mapError(res.text, (cause) => readFailed(out, cause)) : Effect.orElseSucceed(res.text, () => ""),
          (text): Exchanged => ({ status: res.status, retryAfter: res.headers["retry-after"], text })
        )
      }
    ),
    out.timeoutMs,
    () => timeoutError(out)
  )

/**
 * Straight to the undici dispatcher the `HttpClient` would use (the same pooled Agent, sockets and request options):
 * one asynchronous step per attempt, the deadline a timer that aborts the request. The platform's request and
 * response objects, URL parsing, abort-controller registry and the deadline's fork cost about as much CPU as the
 * exchange itself on the client's hot path (benchmarks/llm/client-cpu.mjs).
 */
const viaDispatcher = (dispatcher: Undici.Dispatcher) => (out: Outgoing): Effect.Effect<Exchanged, LlmAttemptError> =>
  Effect.async<Exchanged, LlmAttemptError>((resume) => {
    const controller = new AbortController()
    let settled = false
    const done = (effect: Effect.Effect<Exchanged, LlmAttemptError>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    const timer = setTimeout(() => {
      done(Effect.fail(timeoutError(out)))
      controller.abort()
    }, out.timeoutMs)
    dispatcher.request({
      method: "POST",
      origin: out.endpoint,
      path: out.path,
      headers: { "content-type": "application/json", ...out.headers },
      body: JSON.stringify(out.body),
      signal: controller.signal,
      // the deadline above bounds the whole exchange (as the HttpClient path leaves timeouts to Effect)
      headersTimeout: 60 * 60 * 1000,
      bodyTimeout: 0
    }, (error, res) => {
      if (error !== null) {
        return done(Effect.fail(unreachable(out, `Transport error (POST ${out.endpoint}${out.path})`, error)))
      }
      const ok = res.statusCode >= 200 && res.statusCode < 300
      const retryAfter = header(res.headers["retry-after"])
      res.body.text().then(
        (text) => done(Effect.succeed({ status: res.statusCode, retryAfter, text })),
        (cause) =>
          done(
            ok ? Effect.fail(readFailed(out, cause)) : Effect.succeed({ status: res.statusCode, retryAfter, text: "" })
          )
      )
    })
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      controller.abort()
    })
  })

/**
 * The transport over `http`: straight to its undici dispatcher when `LlmHttp` built it, else through it. Either way
 * the platform's own per-request span is off: the attempt span (kind "client") is the HTTP span and sets `traceparent`.
 */
export const makeTransport = (http: HttpClient.HttpClient): Transport => {
  const untraced = http.pipe(HttpClient.withTracerDisabledWhen(() => true))
  const dispatcher = dispatchers.get(http)
  return {
    http: untraced,
    exchange: dispatcher === undefined ? viaHttpClient(untraced) : viaDispatcher(dispatcher)
  }
}
