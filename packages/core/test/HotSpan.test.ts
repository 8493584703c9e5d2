import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Option, Tracer } from "effect"
import { annotateHotSpan, withHotSpan } from "../src/index.js"

/** A tracer that keeps every span it makes (the native tracer's spans), to compare the two ways of making them. */
const recording = Effect.map(Effect.tracer, (native) => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (...args) => {
      const span = native.span(...args)
      spans.push(span)
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
})

/** What a span looks like from outside once ended: name, parent's name, kind, attributes, how it ended. */
const shape = (span: Tracer.Span) => ({
  name: span.name,
  parent: Option.match(span.parent, { onNone: () => "-", onSome: (p) => p._tag === "Span" ? p.name : "external" }),
  kind: span.kind,
  attributes: Object.fromEntries(span.attributes),
  ended: span.status._tag === "Ended" ? Exit.isSuccess(span.status.exit) ? "success" : "failure" : "open"
})

/** `inner` under an `outer` span, the caller's span read back after it. */
const under = <A, E>(inner: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(inner)
    const after = yield* Effect.currentSpan
    return { exit, after: after.name }
  }).pipe(Effect.withSpan("outer"))

describe("withHotSpan", () => {
  it.effect("makes the span Effect.withSpan makes (name, parent, kind, attributes, status); children see it", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recording
      const body = (fail: boolean) =>
        Effect.gen(function*() {
          yield* annotateHotSpan({ "deepnote.step": 2 })
          yield* Effect.void.pipe(Effect.withSpan("child"))
          if (fail) return yield* Effect.fail("no")
          return 1
        })
      const run = (fail: boolean, span: (self: Effect.Effect<number, string>) => Effect.Effect<number, string>) =>
        under(span(body(fail))).pipe(Effect.withTracer(tracer))

      for (const fail of [false, true]) {
        spans.length = 0
        // what it leaves out: the stack trace Effect captures at each call (`code.stacktrace` on a failed span)
        const effects = yield* run(
          fail,
          Effect.withSpan("call", { kind: "client", attributes: { a: 1 }, captureStackTrace: false })
        )
        const expected = spans.map(shape)
        spans.length = 0
        const hot = yield* run(fail, withHotSpan("call", { kind: "client", attributes: { a: 1 } }))
        assert.deepStrictEqual(spans.map(shape), expected)
        assert.deepStrictEqual(hot.exit, effects.exit)
        assert.strictEqual(hot.after, "outer")
      }
      assert.deepStrictEqual(spans.map(shape).find((s) => s.name === "call"), {
        name: "call",
        parent: "outer",
        kind: "client",
        attributes: { a: 1, "deepnote.step": 2 },
        ended: "failure"
      })
      assert.strictEqual(spans.map(shape).find((s) => s.name === "child")?.parent, "call")
    }))

  it.live("ends the span and gives the caller's span back when interrupted", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recording
      const fiber = yield* Effect.fork(under(Effect.never.pipe(withHotSpan("call"))).pipe(Effect.withTracer(tracer)))
      yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(fiber)
      const call = spans.find((s) => s.name === "call")
      assert.strictEqual(call?.status._tag, "Ended")
      // and after an interruption the caller runs on with its own span (a failure seen by `under`)
      const { after, exit } = yield* under(Effect.interrupt.pipe(withHotSpan("call"))).pipe(Effect.withTracer(tracer))
      assert.isTrue(Exit.isInterrupted(exit))
      assert.strictEqual(after, "outer")
    }))

  it.effect("keeps the caller's services, in their order, with the span as the only change; the caller's context after", () =>
    Effect.gen(function*() {
      class Greeting extends Context.Tag("test/Greeting")<Greeting, string>() {}
      const keys = <R>(context: Context.Context<R>) => [...context.unsafeMap.keys()]
      const { before, inside, after } = yield* Effect.gen(function*() {
        const before = yield* Effect.context<Greeting>()
        const inside = yield* Effect.context<Greeting>().pipe(withHotSpan("call"))
        const after = yield* Effect.context<Greeting>()
        return { before, inside, after }
      }).pipe(Effect.provideService(Greeting, "hello"), Effect.withSpan("outer"))
      assert.deepStrictEqual(keys(inside), keys(before))
      assert.strictEqual(Context.get(inside, Greeting), "hello")
      const parent = Option.getOrThrow(Context.getOption(inside, Tracer.ParentSpan))
      assert.strictEqual(parent._tag === "Span" ? parent.name : "external", "call")
      for (const key of keys(before)) {
        if (key !== Tracer.ParentSpan.key) assert.strictEqual(inside.unsafeMap.get(key), before.unsafeMap.get(key))
      }
      assert.strictEqual(after, before)
    }))

  it.effect("with the tracer disabled it makes no span", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recording
      yield* Effect.void.pipe(withHotSpan("call"), Effect.withTracerEnabled(false), Effect.withTracer(tracer))
      assert.deepStrictEqual(spans.map((s) => s.name), [])
    }))
})
