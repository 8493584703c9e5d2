import { type Context, type Exit, type Option, Tracer } from "effect"
import { SpanEventRecord, type SpanRecord, spanRecordOf, toAttributes } from "./SpanRecord.js"

/**
 * A span of the inner tracer that also reports itself when it ends. Everything else is forwarded, so the inner tracer
 * (the native one or OTLP) sees exactly what it would see without the wrapper.
 */
class RecordedSpan implements Tracer.Span {
  readonly _tag = "Span"
  private readonly events: Array<SpanEventRecord> = []

  constructor(private readonly inner: Tracer.Span, private readonly onEnd: (record: SpanRecord) => void) {}

  get name(): string {
    return this.inner.name
  }
  get spanId(): string {
    return this.inner.spanId
  }
  get traceId(): string {
    return this.inner.traceId
  }
  get parent(): Option.Option<Tracer.AnySpan> {
    return this.inner.parent
  }
  get context(): Context.Context<never> {
    return this.inner.context
  }
  get status(): Tracer.SpanStatus {
    return this.inner.status
  }
  get attributes(): ReadonlyMap<string, unknown> {
    return this.inner.attributes
  }
  get links(): ReadonlyArray<Tracer.SpanLink> {
    return this.inner.links
  }
  get sampled(): boolean {
    return this.inner.sampled
  }
  get kind(): Tracer.SpanKind {
    return this.inner.kind
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.inner.end(endTime, exit)
    this.onEnd(spanRecordOf(this, endTime, exit, this.events))
  }

  attribute(key: string, value: unknown): void {
    this.inner.attribute(key, value)
  }

  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.events.push(
      new SpanEventRecord({ name, timeUnixNano: startTime, attributes: toAttributes(Object.entries(attributes ?? {})) })
    )
    this.inner.event(name, startTime, attributes)
  }

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.inner.addLinks(links)
  }
}

/** Wraps `inner` so that every span reports its record to `onEnd` when it ends (after the inner span has ended). */
export const recordingTracer = (inner: Tracer.Tracer, onEnd: (record: SpanRecord) => void): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      new RecordedSpan(inner.span(name, parent, context, links, startTime, kind, options), onEnd),
    context: (f, fiber) => inner.context(f, fiber)
  })
