import { Chunk, Clock, Context, Effect, FiberRef, HashMap, Option, Tracer } from "effect"
import { setFiberRefAround } from "../SetFiberRefAround.js"

/**
 * Spans for the methods on a run's per-call path (the journal's call, the event log's append, the collection search,
 * the LLM client's chat and attempt, the role calls), ≈ 8 spans per LLM call.
 *
 * `Effect.withSpan` costs 36 steps of the Effect run loop (it makes the span current with `Effect.provideService`, a
 * `FiberRef` change undone by an `acquireUseRelease`, inside an `onExit`), and `Effect.fn` 38 plus a captured stack
 * trace per call; at ≈ 8.5 spans per call they were ≈ 300 of a call's ≈ 840 steps (`benchmarks/cpu`). `withHotSpan`
 * makes the same span (same tracer, parent, attributes, timing, status) current and ends it in 15 steps: it sets the
 * fiber's context once and puts the caller's back when the effect ends, however it ends. What it leaves out: the
 * `code.stacktrace` attribute Effect adds to a failed span from a stack captured at every call. Where the span's setup
 * is one it does not reproduce — the tracer disabled (`Effect.withTracerEnabled`), span annotations or links set for
 * the region (`Effect.annotateSpans`, `Effect.linkSpans`), a parent that disables propagation — it is `Effect.withSpan`.
 *
 * Use it (with `Effect.fnUntraced(body, withHotSpan(name))`) where a method runs per LLM call; elsewhere `Effect.fn`.
 */
export const withHotSpan = (
  name: string,
  options?: { readonly attributes?: Readonly<Record<string, unknown>>; readonly kind?: Tracer.SpanKind }
) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.withFiberRuntime<A, E, R>((fiber) => {
      const context = fiber.currentContext
      const parent = Context.getOption(context, Tracer.ParentSpan)
      if (
        !fiber.getFiberRef(FiberRef.currentTracerEnabled) ||
        HashMap.size(fiber.getFiberRef(FiberRef.currentTracerSpanAnnotations)) > 0 ||
        Chunk.size(fiber.getFiberRef(FiberRef.currentTracerSpanLinks)) > 0 ||
        (Option.isSome(parent) && Context.get(parent.value.context, Tracer.DisablePropagation))
      ) {
        return restore(Effect.withSpan(self, name, { ...options, captureStackTrace: false }))
      }
      const timed = fiber.getFiberRef(FiberRef.currentTracerTimingEnabled)
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const span = fiber.currentTracer.span(
        name,
        parent,
        Context.empty(),
        [],
        timed ? clock.unsafeCurrentTimeNanos() : zero,
        options?.kind ?? "internal",
        options
      )
      if (options?.attributes !== undefined) {
        for (const key in options.attributes) span.attribute(key, options.attributes[key])
      }
      // the caller's context is current again when the span ends
      return setFiberRefAround(
        FiberRef.currentContext,
        withParentSpan(context, span),
        context,
        restore(self),
        (exit) => {
          span.end(timed ? clock.unsafeCurrentTimeNanos() : zero, exit)
          return exit
        }
      )
    })
  )

const zero = BigInt(0)

/**
 * `Context.add(context, Tracer.ParentSpan, span)`, copied entry by entry: `Context.add` copies the map through its
 * iterator (`new Map(map)`), an array per entry — with the ≈ 34 services of a run's context, ≈ 8 % of all the bytes a
 * run allocated (a sampling allocation profile, `benchmarks/cpu`).
 */
const withParentSpan = (context: Context.Context<never>, span: Tracer.Span): Context.Context<never> => {
  const services = new Map<string, unknown>()
  context.unsafeMap.forEach((service, key) => services.set(key, service))
  services.set(Tracer.ParentSpan.key, span)
  return Context.unsafeMake(services)
}

/**
 * `Effect.annotateCurrentSpan` in one step instead of eight: the attributes on the fiber's current span (none when
 * it has no span, or its span is an external one).
 */
export const annotateHotSpan = (attributes: Readonly<Record<string, unknown>>): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const span = fiber.currentSpan
    if (span?._tag === "Span") { for (const key in attributes) span.attribute(key, attributes[key]) }
    return Effect.void
  })
