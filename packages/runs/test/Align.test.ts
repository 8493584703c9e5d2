import { paperRecipe } from "@deepnote-rag/align"
import { PreferencePair } from "@deepnote-rag/core"
import {
  alignSummary,
  enqueueRun,
  processOwner,
  RunEvents,
  RunExecutor,
  runWorker,
  WorkQueue,
  writeAlignOutput
} from "@deepnote-rag/runs"
import { Journal, RunStore, Store } from "@deepnote-rag/store"
import { EmbeddedPostgres, PostgresDatabase } from "@deepnote-rag/store/testing"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Queue, Schema } from "effect"
import * as Path from "node:path"
import { type CallCounter, countingEngine, sampleHome } from "./Engine.js"
import { memoryServices, newRun } from "./Runs.js"

const owner = processOwner("test")

/** The paper's recipe (extractive samples and judges), its pairs written to `dir`/name. */
const recipe = (dir: string, name: string) =>
  paperRecipe({
    output: { path: Path.join(dir, `${name}.jsonl`), splitRoles: false, card: Path.join(dir, `${name}.card.md`) }
  })

const newAlignRun = (limit: number, dir: string, name: string, execution: "local" | "queue" = "local") =>
  newRun(limit, { align: recipe(dir, name), execution })

/** Calls journaled for a run (role samples, judges, retrievals). */
const journaledCalls = (runId: string) =>
  Effect.flatMap(Journal, (journal) => journal.totals(runId)).pipe(
    Effect.map((totals) => totals.reduce((n, t) => n + t.calls, 0))
  )

/** Writes the run's pairs and returns the file's lines, each checked against the schema. */
const pairsOf = (runId: string) =>
  Effect.gen(function*() {
    const { written } = yield* writeAlignOutput(runId)
    const fs = yield* FileSystem.FileSystem
    const lines = (yield* fs.readFileString(written.files[0]!.path)).trim().split("\n")
    const decode = Schema.decodeUnknownSync(Schema.parseJson(PreferencePair))
    for (const line of lines) {
      const pair = decode(line)
      assert.notStrictEqual(pair.chosen[0].content, pair.rejected[0].content)
    }
    return lines
  })

describe("align runs", () => {
  it.scopedLive("interrupted mid-run and resumed: the same pairs as an uninterrupted run, no finished call re-sent", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "dn-align-" })
      const executor = yield* RunExecutor
      // a slow engine (its retrievals and ARD judges take a few milliseconds), so the stop lands mid-run
      const engine = () => countingEngine(home, { calls: 0, delayMs: 2 })

      const reference = yield* newAlignRun(6, dir, "reference")
      const done = yield* executor.execute(reference, { engine: engine(), concurrency: 3, owner })
      assert.strictEqual(done.status, "completed")
      const total = yield* journaledCalls(reference)
      assert.strictEqual(done.executedCalls, total)
      const expected = yield* pairsOf(reference)
      assert.isAbove(expected.length, 6)
      const summary = yield* alignSummary(yield* (yield* RunStore).getRun(reference))
      assert.deepStrictEqual(summary.roles.map((r) => r.role), ["init", "plan", "update", "answer"])
      assert.strictEqual(summary.questions, 6)

      // the same run stopped once two questions are done (questions in flight stop at their next call boundary)
      const runId = yield* newAlignRun(6, dir, "resumed")
      const events = yield* (yield* RunEvents).subscribe
      const twoDone = yield* Deferred.make<void>()
      let finished = 0
      yield* Queue.take(events).pipe(
        Effect.tap((e) =>
          e._tag === "ItemDone" && ++finished === 2 ? Deferred.succeed(twoDone, undefined) : Effect.void
        ),
        Effect.forever,
        Effect.forkScoped
      )
      const fiber = yield* Effect.fork(executor.execute(runId, { engine: engine(), concurrency: 3, owner }))
      yield* Deferred.await(twoDone)
      yield* Fiber.interrupt(fiber)
      const store = yield* RunStore
      const stopped = yield* store.getRun(runId)
      assert.strictEqual(stopped.status, "interrupted")
      assert.isBelow(stopped.counts.done, 6)
      const journaled = yield* journaledCalls(runId)
      assert.isBelow(journaled, total)

      const resumed = yield* executor.execute(runId, { engine: engine(), concurrency: 3, owner })
      assert.strictEqual(resumed.status, "completed")
      // what was journaled is replayed, never executed again; the rest is executed once
      assert.strictEqual(resumed.executedCalls, total - journaled)
      assert.strictEqual(yield* journaledCalls(runId), total)
      assert.deepStrictEqual(yield* pairsOf(runId), expected)
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("a crash (a defect in the engine) mid-run: resumed from the journal to the same pairs", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "dn-align-" })
      const executor = yield* RunExecutor
      const reference = yield* newAlignRun(4, dir, "reference")
      const counted: CallCounter = { calls: 0 }
      yield* executor.execute(reference, { engine: countingEngine(home, counted), concurrency: 2, owner })
      const total = yield* journaledCalls(reference)

      const runId = yield* newAlignRun(4, dir, "crashed")
      // the engine's retrievals and ARD judges count; the crash comes halfway through them
      const crash = yield* Effect.exit(executor.execute(runId, {
        engine: countingEngine(home, { calls: 0, dieAfter: Math.floor(counted.calls / 2) }),
        concurrency: 2,
        owner
      }))
      assert.strictEqual(crash._tag, "Failure")
      const journaled = yield* journaledCalls(runId)
      const resumed = yield* executor.execute(runId, {
        engine: countingEngine(home, { calls: 0 }),
        concurrency: 2,
        owner
      })
      // every journaled call stays journaled (a done question is not run again; a cut-off one replays its calls)
      assert.strictEqual(resumed.executedCalls, total - journaled)
      assert.deepStrictEqual(yield* pairsOf(runId), yield* pairsOf(reference))
    }).pipe(Effect.provide(memoryServices)))
})

/** Queue workers and the executor over one store (SQLite file or Postgres), as separate processes would share it. */
const sharedServices = (url: string) =>
  Layer.merge(WorkQueue.layer({ pollInterval: "20 millis", lockExpiration: "2 seconds" }), RunExecutor.layer()).pipe(
    Layer.provideMerge(Layer.merge(Store.layer({ url }), RunEvents.layer))
  )

/** Two workers execute an align run from the queue; its pairs equal a local run's. */
const twoWorkers = (url: string) =>
  Effect.gen(function*() {
    const home = yield* sampleHome
    const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "dn-align-" })
    const queued = yield* Effect.gen(function*() {
      const id = yield* newAlignRun(4, dir, "queued", "queue")
      assert.strictEqual((yield* enqueueRun(id)).jobs, 4)
      return id
    }).pipe(Effect.provide(sharedServices(url)))
    const work = runWorker({
      concurrency: 2,
      engineFor: () => countingEngine(home, { calls: 0 }),
      idleExit: "1 second"
    })
    const [a, b] = yield* Effect.all([
      Effect.scoped(work).pipe(Effect.provide(sharedServices(url))),
      Effect.scoped(work).pipe(Effect.provide(sharedServices(url)))
    ], { concurrency: 2 })
    assert.strictEqual(a.done + b.done, 4)
    yield* Effect.gen(function*() {
      const run = yield* (yield* RunStore).getRun(queued)
      assert.strictEqual(run.status, "completed")
      const local = yield* newAlignRun(4, dir, "local")
      yield* (yield* RunExecutor).execute(local, {
        engine: countingEngine(home, { calls: 0 }),
        concurrency: 2,
        owner
      })
      assert.deepStrictEqual(yield* pairsOf(queued), yield* pairsOf(local))
    }).pipe(Effect.provide(sharedServices(url)))
  })

describe("align runs on queue workers", () => {
  it.scopedLive("two workers over a shared SQLite store: every question done once, the pairs of a local run", () =>
    Effect.gen(function*() {
      const dir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "dn-align-q-" })
      yield* twoWorkers(`sqlite:${Path.join(dir, "deepnote.sqlite")}`)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive(
    "two workers over a real Postgres (the scale-out store): the pairs of a local run",
    () =>
      Effect.gen(function*() {
        const { url } = yield* PostgresDatabase
        yield* twoWorkers(url)
      }).pipe(
        Effect.provide(
          PostgresDatabase.layer.pipe(Layer.provide(EmbeddedPostgres.layer), Layer.provideMerge(NodeContext.layer))
        )
      ),
    { timeout: 120_000 }
  )
})
