import { Answerer, RoleError } from "@deepnote-rag/core"
import { checkResumable, processOwner, RunEvents, RunExecutor, runReport } from "@deepnote-rag/runs"
import { EventLog, Journal, RunStore } from "@deepnote-rag/store"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, type Duration, Effect, Fiber, Layer, Stream } from "effect"
import { type CallCounter, countingEngine, sampleHome } from "./Engine.js"
import { memoryServices, newRun } from "./Runs.js"

const owner = processOwner("test")

/** Executes `runId` over the sample `home`, two questions at a time unless told, counting the engine's calls in `calls`. */
const execute = (
  home: string,
  runId: string,
  calls: CallCounter,
  options: { readonly concurrency?: number; readonly drainTimeout?: Duration.DurationInput } = {}
) =>
  Effect.flatMap(
    RunExecutor,
    (executor) => executor.execute(runId, { engine: countingEngine(home, calls), concurrency: 2, owner, ...options })
  )

/** Answers and traces of a run, without timings. */
const outcomes = (runId: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const records = Chunk.toReadonlyArray(yield* Stream.runCollect(store.results(runId)))
    return records.map((r) => ({
      id: r.itemId,
      status: r.status,
      answer: r.result?.answer.text,
      note: r.result?.bestNote?.text,
      queries: r.result?.trace.queries,
      passages: r.result?.trace.passages.map((p) => p.passage.id),
      verdicts: r.result?.trace.notes.map((n) => n.verdict?.better)
    }))
  })

describe("runs: resume replays the journal", () => {
  it.scopedLive("a crashed run resumes to the same results, re-sending only calls that were in flight", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const concurrency = 4

      const reference: CallCounter = { calls: 0 }
      const first = yield* newRun(12)
      yield* execute(home, first, reference, { concurrency })
      const expected = yield* outcomes(first)

      const crashing: CallCounter = { calls: 0, dieAfter: Math.floor(reference.calls / 2) }
      const second = yield* newRun(12)
      const crash = yield* Effect.exit(
        execute(home, second, crashing, { concurrency })
      )
      assert.strictEqual(crash._tag, "Failure")
      const store = yield* RunStore
      assert.strictEqual((yield* store.getRun(second)).status, "failed")

      const resumed: CallCounter = { calls: 0 }
      const summary = yield* execute(home, second, resumed, { concurrency })
      assert.strictEqual(summary.status, "completed")
      assert.isAbove(summary.replayedCalls, 0)
      assert.deepStrictEqual(
        (yield* outcomes(second)).map(({ id: _, ...rest }) => rest),
        expected.map(({ id: _, ...rest }) => rest)
      )
      // the crashing call itself never completed; at most `concurrency` calls were cut off and are sent again
      const completedBeforeCrash = crashing.calls - 1
      const resent = completedBeforeCrash + resumed.calls - reference.calls
      assert.isAtMost(resent, concurrency)
      assert.isAtLeast(resent, 0)
      const counts = (yield* store.getRun(second)).counts
      assert.deepStrictEqual([counts.done, counts.total], [12, 12])
      // the event log holds each question's events once, as an uninterrupted run logs them (resumed questions re-emit
      // the events of their replayed calls; those are not logged twice)
      const eventLog = yield* EventLog
      const logged = (runId: string) =>
        Effect.map(eventLog.since(runId, { limit: 100_000 }), (events) => {
          const byItem = new Map<string, Array<string>>()
          for (const e of events) byItem.set(e.itemId, [...(byItem.get(e.itemId) ?? []), e.event._tag])
          return [...byItem.values()]
        })
      const eventsOf = (runId: string) =>
        Effect.map(logged(runId), (items) => items.map((tags) => tags.join(",")).sort())
      assert.deepStrictEqual(yield* eventsOf(second), yield* eventsOf(first))
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("a stop is bounded by the drain timeout even when calls in flight never return (a stalled server)", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const store = yield* RunStore
      const runId = yield* newRun(4)
      // every call takes ten minutes: the questions in flight cannot reach a call boundary
      const stalled: CallCounter = { calls: 0, delayMs: 600_000 }
      const fiber = yield* Effect.fork(execute(home, runId, stalled, { drainTimeout: "300 millis" }))
      while (stalled.calls < 2) yield* Effect.sleep("20 millis")
      const started = Date.now()
      // what SIGINT/SIGTERM does to the CLI's main fiber; bounded here so that a regression fails instead of hanging
      yield* Fiber.interruptFork(fiber)
      const stopped = yield* Fiber.await(fiber).pipe(Effect.timeout("30 seconds"), Effect.option)
      assert.isTrue(stopped._tag === "Some", "the run stopped")
      assert.isBelow(Date.now() - started, 15_000, "within the drain timeout and an interruption, not the calls' time")
      const run = yield* store.getRun(runId)
      assert.strictEqual(run.status, "interrupted")
      assert.deepStrictEqual([run.counts.done, run.counts.failed], [0, 0])
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("an interrupted run is marked interrupted and resumes to completion; a finished run is a no-op", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const store = yield* RunStore
      const runId = yield* newRun(10)
      const hub = yield* RunEvents
      const events = yield* hub.subscribe
      const fiber = yield* Effect.fork(execute(home, runId, { calls: 0 }, { drainTimeout: "5 seconds" }))
      // wait for the third finished question, then stop (what SIGINT does to the CLI's main fiber)
      let finished = 0
      while (finished < 3) {
        const event = yield* events.take
        if (event._tag === "ItemDone") finished += 1
      }
      yield* Fiber.interrupt(fiber)
      const interrupted = yield* store.getRun(runId)
      assert.strictEqual(interrupted.status, "interrupted")
      assert.isAtLeast(interrupted.counts.done, 3)
      assert.isBelow(interrupted.counts.done, 10)
      // questions in flight stopped at their next call boundary: they stay `running`, their finished calls journaled
      assert.isAtMost(interrupted.counts.running, 2)
      assert.strictEqual(interrupted.counts.failed, 0)
      const journal = yield* Journal
      const cutOff = (yield* store.pendingItems(runId)).filter((i) => i.status === "running")
      const journaled = yield* Effect.forEach(
        cutOff,
        (i) => journal.entries(runId, i.itemId).pipe(Effect.map((e) => e.length))
      )
      const summary = yield* execute(home, runId, { calls: 0 })
      assert.strictEqual(summary.done, 10 - interrupted.counts.done)
      assert.strictEqual(
        summary.replayedCalls,
        journaled.reduce((a, b) => a + b, 0),
        "every call finished before the stop is replayed"
      )
      const again = yield* execute(home, runId, { calls: 0 })
      assert.isTrue(again.nothingToDo)
      const report = yield* runReport(runId)
      assert.strictEqual(report.counts.done, 10)
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("a failing question is recorded with its error and does not stop the run", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const executor = yield* RunExecutor
      const store = yield* RunStore
      const runId = yield* newRun(5)
      const items = yield* store.pendingItems(runId)
      const victim = items[2]!.itemId
      const engine = Layer.provideMerge(
        Layer.effect(
          Answerer,
          Effect.map(Answerer, (inner) => ({
            answer: (i) =>
              i.context.questionId === victim
                ? Effect.fail(new RoleError({ role: "answer", message: "server said no" }))
                : inner.answer(i)
          }))
        ),
        countingEngine(home, { calls: 0 })
      )
      const summary = yield* executor.execute(runId, { engine, concurrency: 2, owner })
      assert.deepStrictEqual([summary.status, summary.done, summary.failed], ["completed", 4, 1])
      const item = yield* store.getItem(runId, victim)
      assert.deepStrictEqual([item.status, item.error?.tag, item.error?.message], [
        "failed",
        "RoleError",
        "server said no"
      ])
      const run = yield* store.getRun(runId)
      assert.include(run.message ?? "", "1 question failed")
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("resume refuses a run made with other prompts", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const runId = yield* newRun(2)
      const run = yield* store.getRun(runId)
      const refused = yield* Effect.flip(checkResumable(run, { promptSetHash: "llm:other" }))
      assert.include(refused.message, "--force-new-run")
      yield* checkResumable(run, { promptSetHash: "extractive@test" })
    }).pipe(Effect.provide(memoryServices)))
})
