import { Config, Option, Tracer } from "effect"
import { randomBytes } from "node:crypto"

/**
 * Spans of the storage and journal internals: one per SQL statement, store method and journal lookup. They are most of
 * a run's spans (about 72% of a 3-question run's) and say little to someone tracing a failed question, so they are not
 * exported unless `DEEPNOTE_TRACE_INTERNALS=true` (for debugging the store itself).
 */
export const internalSpanPrefixes: ReadonlyArray<string> = [
  "sql.",
  "Journal.",
  "EventLog.",
  "RunStore.",
  "RunLeases.",
  "WorkQueue.",
  "Replay."
]

export const isInternalSpan = (name: string): boolean => internalSpanPrefixes.some((prefix) => name.startsWith(prefix))

/** `DEEPNOTE_TRACE_INTERNALS`: export the internals' spans too. Default false. */
export const traceInternalsConfig = Config.boolean("DEEPNOTE_TRACE_INTERNALS").pipe(Config.withDefault(false))

/**
 * A span that is not exported and is transparent to its children: it takes its parent's ids, so a span started
 * inside it (an LLM call inside a journal lookup) is exported as a child of the nearest exported span — the trace keeps
 * its shape, minus the internals.
 */
class PassThroughSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly spanId: string
  readonly traceId: string
  readonly sampled: boolean
  readonly attributes = new Map<string, unknown>()
  status: Tracer.SpanStatus

  constructor(
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Tracer.Span["context"],
    readonly links: ReadonlyArray<Tracer.SpanLink>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind
  ) {
    const above = Option.getOrUndefined(parent)
    this.spanId = above?.spanId ?? randomBytes(8).toString("hex")
    this.traceId = above?.traceId ?? randomBytes(16).toString("hex")
    this.sampled = above?.sampled ?? false
    this.status = { _tag: "Started", startTime }
  }

  end(endTime: bigint, exit: Parameters<Tracer.Span["end"]>[1]) {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
  }
  attribute(): void {}
  event(): void {}
  addLinks(): void {}
}

/** Wraps `inner` so that spans whose name `quiet` accepts are not exported (and are transparent to their children). */
export const quietTracer = (inner: Tracer.Tracer, quiet: (name: string) => boolean = isInternalSpan): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      quiet(name)
        ? new PassThroughSpan(name, parent, context, links, startTime, kind)
        : inner.span(name, parent, context, links, startTime, kind, options),
    context: (f, fiber) => inner.context(f, fiber)
  })
