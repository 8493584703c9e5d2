import { type Context, Effect, type Exit, type Option, Tracer } from "effect"

/** A span as it ended: its name, attributes and exit. */
export interface EndedSpan {
  readonly name: string
  readonly attributes: ReadonlyMap<string, unknown>
  readonly exit: Exit.Exit<unknown, unknown>
}

class Recorded implements Tracer.Span {
  readonly _tag = "Span"
  constructor(private readonly inner: Tracer.Span, private readonly onEnd: (span: EndedSpan) => void) {}
  get name() {
    return this.inner.name
  }
  get spanId() {
    return this.inner.spanId
  }
  get traceId() {
    return this.inner.traceId
  }
  get parent(): Option.Option<Tracer.AnySpan> {
    return this.inner.parent
  }
  get context(): Context.Context<never> {
    return this.inner.context
  }
  get status() {
    return this.inner.status
  }
  get attributes() {
    return this.inner.attributes
  }
  get links() {
    return this.inner.links
  }
  get sampled() {
    return this.inner.sampled
  }
  get kind() {
    return this.inner.kind
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>) {
    this.inner.end(endTime, exit)
    this.onEnd({ name: this.name, attributes: this.inner.attributes, exit })
  }
  attribute(key: string, value: unknown) {
    this.inner.attribute(key, value)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>) {
    this.inner.event(name, startTime, attributes)
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>) {
    this.inner.addLinks(links)
  }
}

/** Runs `self` with a tracer that also records every span that ends. */
export const recordingSpans = <A, E, R>(self: (spans: ReadonlyArray<EndedSpan>) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.tracer, (inner) => {
    const spans: Array<EndedSpan> = []
    const tracer = Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) =>
        new Recorded(inner.span(name, parent, context, links, startTime, kind, options), (s) => spans.push(s)),
      context: (f, fiber) => inner.context(f, fiber)
    })
    return Effect.withTracer(self(spans), tracer)
  })
