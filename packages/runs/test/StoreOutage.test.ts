import {
  enqueueRun,
  processOwner,
  RunEvents,
  RunExecutor,
  runWorker,
  type StoreOutageChange,
  WorkQueue
} from "@deepnote-rag/runs"
import { RunStore, Store, StoreError } from "@deepnote-rag/store"
import { EmbeddedPostgres } from "@deepnote-rag/store/testing"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Cause, Chunk, Clock, type Duration, Effect, Exit, Fiber, Layer, Queue, Stream } from "effect"
import { countingEngine, sampleHome } from "./Engine.js"
import { newRun } from "./Runs.js"

const owner = processOwner("test")

/** The executor over a Postgres store. */
const postgresServices = (url: string, storeOutageTolerance: Duration.DurationInput) =>
  Layer.mergeAll(
    RunExecutor.layer({ storeOutageTolerance }).pipe(
      Layer.provideMerge(Layer.merge(Store.layer({ url }), RunEvents.layer))
    ),
    NodeContext.layer
  )

/** Each question's status and answer. */
const answers = (runId: string) =>
  Effect.gen(function*() {
    const records = Chunk.toReadonlyArray(yield* Stream.runCollect((yield* RunStore).results(runId)))
    return records.map((r) => `${r.itemId} ${r.status} ${r.result?.answer.text ?? ""}`)
  })

/** Asserts that the run's 12 questions got the answers a run of the same questions gets with no outage. */
const answeredAsWithoutOutage = (home: string, runId: string) =>
  Effect.gen(function*() {
    const reference = yield* newRun(12)
    yield* (yield* RunExecutor).execute(reference, {
      engine: countingEngine(home, { calls: 0 }),
      concurrency: 2,
      owner
    })
    const withoutIds = (lines: ReadonlyArray<string>) => lines.map((line) => line.split(" ").slice(1).join(" "))
    assert.deepStrictEqual(withoutIds(yield* answers(runId)), withoutIds(yield* answers(reference)))
  })

/**
 * Executes a run of 12 sample questions (every engine call 10 ms, two questions at a time) and restarts Postgres, down
 * for `downFor`, once the first question is done. Returns the execution's exit, the outage changes it reported, and the
 * run's id.
 */
const executeThroughRestart = (home: string, downFor: Duration.DurationInput) =>
  Effect.gen(function*() {
    const pg = yield* EmbeddedPostgres
    const executor = yield* RunExecutor
    const events = yield* (yield* RunEvents).subscribe
    const runId = yield* newRun(12)
    const changes: Array<StoreOutageChange["_tag"]> = []
    const execution = yield* Effect.fork(executor.execute(runId, {
      engine: countingEngine(home, { calls: 0, delayMs: 10 }),
      concurrency: 2,
      owner,
      onStoreOutage: (change) => Effect.sync(() => void changes.push(change._tag))
    }))
    yield* Effect.repeat(Queue.take(events), { until: (event) => event._tag === "ItemDone" })
    const restart = yield* Effect.fork(pg.restart(downFor))
    const exit = yield* Fiber.await(execution)
    yield* Fiber.join(restart)
    return { exit, changes, runId }
  })

/** An empty database on the file's Postgres server (which the tests restart), the executor over it, a sample home. */
const onNewDatabase = <A, E, R>(
  storeOutageTolerance: Duration.DurationInput,
  test: (home: string) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const home = yield* sampleHome
    const url = yield* (yield* EmbeddedPostgres).createDatabase
    return yield* test(home).pipe(Effect.provide(postgresServices(url, storeOutageTolerance)))
  })

layer(EmbeddedPostgres.layer, { timeout: "60 seconds", excludeTestServices: true })(
  "runs: a store that cannot be reached for a while (a Postgres restart)",
  (it) => {
    it.scoped(
      "questions wait for the store and are done again from their journals: every question answered, as without it",
      () =>
        onNewDatabase("60 seconds", (home) =>
          Effect.gen(function*() {
            const { changes, exit, runId } = yield* executeThroughRestart(home, "1 second")
            assert.isTrue(Exit.isSuccess(exit), `the run failed: ${Exit.isFailure(exit) ? String(exit.cause) : ""}`)
            const summary = yield* exit
            assert.strictEqual(summary.status, "completed")
            assert.deepInclude(summary.counts, { done: 12, failed: 0, pending: 0, running: 0 })
            // an outage begins and ends (a probe may reach a connection the shutting-down server has not closed yet:
            // then it is announced over and begins again)
            assert.strictEqual(changes[0], "StoreUnreachable")
            assert.strictEqual(changes.at(-1), "StoreBack")

            yield* answeredAsWithoutOutage(home, runId)
          })),
      { timeout: 120_000 }
    )

    it.scoped(
      "an outage longer than the tolerance fails the run with the store's error; nothing stored is lost and it resumes",
      () =>
        onNewDatabase("1 second", (home) =>
          Effect.gen(function*() {
            const { changes, exit, runId } = yield* executeThroughRestart(home, "3 seconds")
            assert.isTrue(Exit.isFailure(exit), "the run should have failed")
            const error = yield* Effect.flip(exit)
            assert.isTrue(error instanceof StoreError && error.unreachable, String(error))
            assert.strictEqual(changes.at(-1), "StoreUnreachable", "the last outage outlasted the tolerance")

            const before = (yield* (yield* RunStore).getRun(runId)).counts
            assert.isAtLeast(before.done, 1)
            const resumed = yield* (yield* RunExecutor).execute(runId, {
              engine: countingEngine(home, { calls: 0 }),
              concurrency: 2,
              owner
            })
            assert.strictEqual(resumed.status, "completed")
            assert.deepInclude(resumed.counts, { done: 12, failed: 0 })
            assert.strictEqual(resumed.done, 12 - before.done)
          })),
      { timeout: 120_000 }
    )

    it.scoped(
      "a queue worker's questions wait for the store holding their jobs, and the run completes without waiting for " +
        "their locks to expire",
      () =>
        Effect.gen(function*() {
          const pg = yield* EmbeddedPostgres
          const url = yield* pg.createDatabase
          const home = yield* sampleHome
          // locks expire after 30 s: a job given up at the outage would wait that long for another take
          const services = yield* Layer.build(
            Layer.merge(
              WorkQueue.layer({ pollInterval: "50 millis", lockExpiration: "30 seconds" }),
              RunExecutor.layer()
            )
              .pipe(Layer.provideMerge(Layer.merge(Store.layer({ url }), RunEvents.layer)))
          )
          yield* Effect.gen(function*() {
            const events = yield* (yield* RunEvents).subscribe
            const runId = yield* newRun(12, { execution: "queue" })
            yield* enqueueRun(runId)
            const changes: Array<StoreOutageChange["_tag"]> = []
            const worker = yield* runWorker({
              concurrency: 2,
              engineFor: () => countingEngine(home, { calls: 0, delayMs: 10 }),
              idleExit: "2 seconds",
              storeOutageTolerance: "60 seconds",
              onStoreOutage: (change) => Effect.sync(() => void changes.push(change._tag))
            }).pipe(Effect.scoped, Effect.fork)
            yield* Effect.repeat(Queue.take(events), { until: (event) => event._tag === "ItemDone" })
            yield* pg.restart("3 seconds")
            const back = yield* Clock.currentTimeMillis
            yield* Effect.repeat(Queue.take(events), { until: (event) => event._tag === "RunFinished" }).pipe(
              Effect.timeoutFail({
                duration: "45 seconds",
                onTimeout: () => new Cause.TimeoutException("the run did not finish within 45 s of the store's return")
              })
            )
            const finished = yield* Clock.currentTimeMillis
            const summary = yield* Fiber.join(worker)
            assert.deepInclude(summary, { done: 12, failed: 0 }, JSON.stringify(summary))
            assert.isBelow(finished - back, 15_000, "the run waited for its questions' locks to expire")
            assert.strictEqual(changes[0], "StoreUnreachable")
            assert.strictEqual(changes.at(-1), "StoreBack")

            yield* answeredAsWithoutOutage(home, runId)
          }).pipe(Effect.provide(services), Effect.provide(NodeContext.layer))
        }),
      { timeout: 120_000 }
    )

    it.scoped("a worker with an idle exit does not end while the store cannot be reached (its queue only looks empty)", () =>
      Effect.gen(function*() {
        const pg = yield* EmbeddedPostgres
        const url = yield* pg.createDatabase
        const home = yield* sampleHome
        const services = yield* Layer.build(
          WorkQueue.layer({ pollInterval: "50 millis", lockExpiration: "2 seconds" }).pipe(
            Layer.provideMerge(Layer.merge(Store.layer({ url }), RunEvents.layer))
          )
        )
        const worker = yield* runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0 }),
          idleExit: "1 second"
        }).pipe(Effect.scoped, Effect.provide(services), Effect.zip(Clock.currentTimeMillis), Effect.fork)
        yield* pg.restart("3 seconds")
        const back = yield* Clock.currentTimeMillis
        const [summary, ended] = yield* Fiber.join(worker)
        assert.strictEqual(summary.reason, "idle")
        assert.isAtLeast(ended, back, "the worker ended while the store was down")
      }))
  }
)
