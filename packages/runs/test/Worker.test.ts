import { enqueueRun, processOwner, RunEvents, RunExecutor, runWorker, WorkQueue } from "@deepnote-rag/runs"
import { EventLog, RunStore, Store, StoreError } from "@deepnote-rag/store"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Option, Stream, Tracer } from "effect"
import * as Path from "node:path"
import { type CallCounter, countingEngine, sampleHome } from "./Engine.js"
import { newRun } from "./Runs.js"

/** A store file two workers share, as two processes would (each its own connection and queue worker id). */
const storeFile = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "dn-worker-" }))
  .pipe(Effect.map((dir) => `sqlite:${Path.join(dir, "deepnote.sqlite")}`))

const workerServices = (url: string) =>
  Layer.merge(WorkQueue.layer({ pollInterval: "20 millis", lockExpiration: "2 seconds" }), RunExecutor.layer()).pipe(
    Layer.provideMerge(Layer.merge(Store.layer({ url }), RunEvents.layer))
  )

const newQueueRun = (limit: number) => newRun(limit, { execution: "queue" })

const answers = (runId: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const records = Chunk.toReadonlyArray(yield* Stream.runCollect(store.results(runId)))
    return records.map((r) => [r.itemId, r.status, r.result?.answer.text] as const)
  })

describe("queue workers", () => {
  it.scopedLive("two workers share a queue run: every question answered once, as a local run answers it", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      const counter: CallCounter = { calls: 0 }
      const runId = yield* Effect.gen(function*() {
        const id = yield* newQueueRun(12)
        const enqueued = yield* enqueueRun(id)
        assert.strictEqual(enqueued.jobs, 12)
        assert.strictEqual(enqueued.run.status, "created")
        return id
      }).pipe(Effect.provide(workerServices(url)))

      const work = runWorker({
        concurrency: 2,
        engineFor: () => countingEngine(home, counter),
        idleExit: "1 second"
      })
      const [a, b] = yield* Effect.all([
        Effect.scoped(work).pipe(Effect.provide(workerServices(url))),
        Effect.scoped(work).pipe(Effect.provide(workerServices(url)))
      ], { concurrency: 2 })
      assert.strictEqual(a.reason, "idle")
      assert.strictEqual(a.done + b.done, 12)
      assert.strictEqual(a.failed + b.failed, 0)

      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.getRun(runId)
        assert.strictEqual(run.status, "completed")
        assert.strictEqual(run.counts.done, 12)
        // each question answered once: one Answered event per question in the log
        const log = yield* EventLog
        const events = yield* log.since(runId, { limit: 10_000 })
        const answered = events.filter((e) => e.event._tag === "Answered").map((e) => e.itemId)
        assert.strictEqual(answered.length, 12)
        assert.strictEqual(new Set(answered).size, 12)
        // the same answers as one process executing the same questions
        const local = yield* newRun(12)
        yield* (yield* RunExecutor).execute(local, {
          engine: countingEngine(home, { calls: 0 }),
          concurrency: 4,
          owner: processOwner("test")
        })
        assert.deepStrictEqual(yield* answers(runId), yield* answers(local))
      }).pipe(Effect.provide(workerServices(url)))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a question that keeps killing its worker is failed after its attempts; the others finish", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      yield* Effect.gen(function*() {
        const runId = yield* newQueueRun(4)
        yield* enqueueRun(runId)
        const store = yield* RunStore
        const [poison] = (yield* store.pendingItems(runId)).map((i) => i.itemId)
        const summary = yield* Effect.scoped(runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0, failQuestion: poison! }),
          idleExit: "1 second",
          maxAttempts: 3
        }))
        const run = yield* store.getRun(runId)
        assert.strictEqual(run.counts.done, 3)
        assert.strictEqual(run.counts.failed, 1)
        assert.strictEqual(run.status, "completed")
        const failed = yield* store.getItem(runId, poison!)
        assert.strictEqual(failed.error?.tag, "WorkerCrashed")
        assert.include(failed.error?.message ?? "", "failed after 3 attempts")
        assert.strictEqual(summary.done, 3)
      }).pipe(Effect.provide(workerServices(url)))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a cancelled run's questions stop and wait; enqueued again, the run finishes", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const runId = yield* newQueueRun(10)
        yield* enqueueRun(runId)
        yield* store.setRunStatus(runId, "interrupted", "cancelled")
        const skipped = yield* Effect.scoped(runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0 }),
          idleExit: "1 second"
        }))
        assert.strictEqual(skipped.done, 0)
        assert.strictEqual((yield* store.getRun(runId)).counts.pending, 10)
        const again = yield* enqueueRun(runId)
        assert.strictEqual(again.generation, 1)
        assert.strictEqual(again.jobs, 10)
        const worker = yield* Effect.fork(Effect.scoped(runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0 }),
          idleExit: "1 second"
        })))
        const summary = yield* Fiber.join(worker)
        assert.strictEqual(summary.done, 10)
        assert.strictEqual((yield* store.getRun(runId)).status, "completed")
      }).pipe(Effect.provide(workerServices(url)))
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("a store that cannot be reached for a moment", () => {
  it.scopedLive("a job whose run could not be read is neither dropped nor failed: the worker waits and does it", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const runId = yield* newQueueRun(4)
        yield* enqueueRun(runId)
        // the first read of the run meets a refused connection, as in a Postgres restart
        let refusals = 1
        const refused = new StoreError({
          message: "reading a run failed: connect ECONNREFUSED 127.0.0.1:5432",
          cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })
        })
        const outages: Array<string> = []
        const summary = yield* Effect.scoped(runWorker({
          concurrency: 1,
          engineFor: () => countingEngine(home, { calls: 0 }),
          idleExit: "1 second",
          onStoreOutage: (change) => Effect.sync(() => void outages.push(change._tag))
        })).pipe(
          Effect.provideService(RunStore, {
            ...store,
            getRun: (id) => refusals-- > 0 ? Effect.fail(refused) : store.getRun(id)
          })
        )
        assert.deepInclude(summary, { done: 4, failed: 0, skipped: 0 })
        const run = yield* store.getRun(runId)
        assert.strictEqual(run.status, "completed")
        assert.strictEqual(run.counts.done, 4)
        assert.deepStrictEqual(outages, ["StoreUnreachable", "StoreBack"])
      }).pipe(Effect.provide(workerServices(url)))
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("a cancel and a resume inside the worker's status interval", () => {
  it.scopedLive(
    "the resumed questions are neither dropped nor stopped by the worker's view from before the resume",
    () =>
      Effect.gen(function*() {
        const home = yield* sampleHome
        const url = yield* storeFile
        yield* Effect.gen(function*() {
          const store = yield* RunStore
          const runId = yield* newQueueRun(6)
          yield* enqueueRun(runId)
          yield* store.setRunStatus(runId, "interrupted", "cancelled")
          // one worker that reads a run's status once a minute: it sees the cancel at its first job and keeps that view
          const worker = yield* Effect.fork(Effect.scoped(runWorker({
            concurrency: 2,
            engineFor: () => countingEngine(home, { calls: 0 }),
            statusInterval: "1 minute"
          })))
          yield* Effect.sleep("1500 millis") // the cancelled run's six jobs taken and dropped: the questions stay pending
          const again = yield* enqueueRun(runId)
          assert.strictEqual(again.jobs, 6)
          let run = yield* store.getRun(runId)
          for (const deadline = Date.now() + 60_000; run.status !== "completed" && Date.now() < deadline;) {
            yield* Effect.sleep("50 millis")
            run = yield* store.getRun(runId)
          }
          yield* Fiber.interrupt(worker)
          assert.strictEqual(run.status, "completed", "the same worker answered the resumed questions")
          assert.strictEqual(run.counts.done, 6)
        }).pipe(Effect.provide(workerServices(url)))
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )
})

describe("queue workers stop", () => {
  it.scopedLive("a stopped worker gives its questions back journaled; another worker finishes the run", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const runId = yield* newQueueRun(12)
        yield* enqueueRun(runId)
        const worker = yield* Effect.fork(Effect.scoped(runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0, delayMs: 30 }),
          drainTimeout: "5 seconds"
        })))
        while ((yield* store.getRun(runId)).counts.done < 3) yield* Effect.sleep("10 millis")
        const started = Date.now()
        yield* Fiber.interrupt(worker)
        assert.isBelow(Date.now() - started, 4000, "the worker stops at its questions' next call")
        const stopped = yield* store.getRun(runId)
        assert.isBelow(stopped.counts.done, 12)
        const rest = yield* Effect.scoped(runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0 }),
          idleExit: "1 second"
        }))
        const after = yield* store.getRun(runId)
        assert.strictEqual(after.counts.done, 12)
        assert.strictEqual(after.status, "completed")
        assert.strictEqual(rest.done, 12 - stopped.counts.done)
      }).pipe(Effect.provide(workerServices(url)))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("the drain timeout bounds a stop: a question stuck inside a call is interrupted, not waited for", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      yield* Effect.gen(function*() {
        const store = yield* RunStore
        const runId = yield* newQueueRun(2)
        yield* enqueueRun(runId)
        // every call takes a minute: no question reaches a call boundary while the worker stops
        const worker = yield* Effect.fork(Effect.scoped(runWorker({
          concurrency: 2,
          engineFor: () => countingEngine(home, { calls: 0, delayMs: 60_000 }),
          drainTimeout: "300 millis"
        })))
        while ((yield* store.getRun(runId)).counts.running < 1) yield* Effect.sleep("10 millis")
        const started = Date.now()
        // the stop runs as a finalizer, where nothing is interruptible: the drain timeout must still cut it short
        yield* Fiber.interrupt(worker)
        assert.isBelow(Date.now() - started, 5000, "stopped after the drain timeout, not after the stuck call")
        assert.strictEqual((yield* store.getRun(runId)).counts.done, 0)
      }).pipe(Effect.provide(workerServices(url)))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a job's question is a child of the job's span (QueueWorker.job), not of the worker's", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const url = yield* storeFile
      const parents: Array<string> = []
      const native = Tracer.make({
        span: (name, parent, context, links, startTime, kind) => {
          if (name === "RunExecutor.item") {
            parents.push(Option.match(parent, { onNone: () => "-", onSome: (p) => p._tag === "Span" ? p.name : "-" }))
          }
          const attributes = new Map<string, unknown>()
          const span: Tracer.Span = {
            _tag: "Span",
            name,
            spanId: `${name}-${parents.length}`,
            traceId: "trace",
            parent,
            context,
            status: { _tag: "Started", startTime },
            attributes,
            links,
            sampled: true,
            kind,
            end: () => {},
            attribute: (key, value) => void attributes.set(key, value),
            event: () => {},
            addLinks: () => {}
          }
          return span
        },
        context: (f) => f()
      })
      yield* Effect.gen(function*() {
        const runId = yield* newQueueRun(2)
        yield* enqueueRun(runId)
        const summary = yield* Effect.scoped(runWorker({
          concurrency: 1,
          engineFor: () => countingEngine(home, { calls: 0 }),
          idleExit: "500 millis"
        }))
        assert.strictEqual(summary.done, 2)
      }).pipe(Effect.provide(workerServices(url)), Effect.withTracer(native))
      assert.deepStrictEqual(parents, ["QueueWorker.job", "QueueWorker.job"])
    }).pipe(Effect.provide(NodeContext.layer)))
})
