import { type Headers, HttpTraceContext } from "@effect/platform"
import { Effect, Option, type Tracer } from "effect"

/**
 * Trace context from HTTP callers, for the HTTP app.
 *
 * Handlers served with `HttpServer.serve` / `HttpApiBuilder.serve` need nothing: the platform's `HttpMiddleware.tracer`
 * (on by default) reads `traceparent` (W3C) or `b3` / `x-b3-*` and makes the request span a child of the caller's span;
 * `HttpClient` calls send `traceparent` and `b3` from the current span. These helpers cover the rest: work that runs
 * outside the request fiber, and clients that are not `HttpClient`.
 */

/** The caller's span from `traceparent`, `b3` or `x-b3-*` headers, if any. */
export const callerSpan = (headers: Headers.Headers): Option.Option<Tracer.ExternalSpan> => HttpTraceContext.fromHeaders(headers)

/** Runs `self` as a child of the caller's span when the headers carry one (e.g. a forked fiber that lost the request span). */
export const withCallerSpan = (headers: Headers.Headers) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Option.match(callerSpan(headers), { onNone: () => self, onSome: (parent) => Effect.withParentSpan(self, parent) })

/**
 * A link to the caller's span, for long work started by a request that outlives it (a run): the work gets its own
 * trace (`deepnote.run` is a root span) and the link connects the two in the trace UI.
 */
export const callerLinks = (headers: Headers.Headers): ReadonlyArray<Tracer.SpanLink> =>
  Option.match(callerSpan(headers), { onNone: () => [], onSome: (span) => [{ _tag: "SpanLink", span, attributes: { "deepnote.link": "caller" } }] })

/** `traceparent` for the current span, for clients that do not propagate it themselves. */
export const traceparentHeaders: Effect.Effect<Record<string, string>> = Effect.map(
  Effect.option(Effect.currentSpan),
  Option.match({ onNone: () => ({}), onSome: (s) => ({ traceparent: `00-${s.traceId}-${s.spanId}-${s.sampled ? "01" : "00"}` }) })
)
