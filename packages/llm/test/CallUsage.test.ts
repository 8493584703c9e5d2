import { type CallUsage, collectCallUsage, currentUsageCollector } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, FiberRef } from "effect"

/** What a finished LLM call does with its usage: hands it to the current fiber's collector, if any. */
const call = (model: string) =>
  Effect.flatMap(FiberRef.get(currentUsageCollector), (collector) =>
    Effect.sync(() =>
      collector?.add({
        role: "answer",
        model,
        endpoint: "http://fake:8000",
        promptTokens: 10,
        completionTokens: 2,
        cachedPromptTokens: 0,
        cached: false,
        ok: true,
        attempts: 1,
        latencyMs: 1
      })
    ))

const models = (calls: ReadonlyArray<CallUsage>) => calls.map((c) => c.model)

describe("collectCallUsage", () => {
  it.effect("collects the calls of its effect and of the fibers it forks, and nothing outside it", () =>
    Effect.gen(function*() {
      const [[, inner], outer] = yield* collectCallUsage(
        Effect.gen(function*() {
          yield* call("before")
          const nested = yield* collectCallUsage(
            Effect.zipRight(call("inner"), Effect.flatMap(Effect.fork(call("forked")), Fiber.join))
          )
          yield* call("after")
          return nested
        })
      )
      assert.deepStrictEqual(models(inner), ["inner", "forked"])
      assert.deepStrictEqual(models(outer), ["before", "after"])
      assert.isUndefined(yield* FiberRef.get(currentUsageCollector))
    }))

  it.effect("puts the caller's collector back when its effect fails", () =>
    Effect.gen(function*() {
      const [, outer] = yield* collectCallUsage(
        Effect.gen(function*() {
          const failed = yield* Effect.exit(collectCallUsage(Effect.zipRight(call("inner"), Effect.fail("boom"))))
          assert.isTrue(Exit.isFailure(failed))
          yield* call("after")
        })
      )
      assert.deepStrictEqual(models(outer), ["after"])
    }))

  it.effect("puts the caller's collector back when its effect is interrupted", () =>
    Effect.gen(function*() {
      const [, outer] = yield* collectCallUsage(
        Effect.gen(function*() {
          const started = yield* Deferred.make<void>()
          const fiber = yield* Effect.fork(
            collectCallUsage(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
          )
          yield* Deferred.await(started)
          yield* Fiber.interrupt(fiber)
          yield* call("after")
          // in this fiber too: an interrupted child never changed it
          yield* Effect.uninterruptible(
            Effect.exit(collectCallUsage(Effect.zipRight(call("inner"), Effect.interrupt)))
          )
          yield* call("last")
        })
      )
      assert.deepStrictEqual(models(outer), ["after", "last"])
    }))
})
