import { assert, describe } from "@effect/vitest"
import { Chunk, Effect, Exit, Random, Stream, TestClock } from "effect"
import { Journal, makeRunId, RunStore, Sweeps } from "../../src/index.js"
import { manifest, question, result, unique } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

export const runStoreSuite = (it: SuiteIt) =>
  describe("RunStore", () => {
    it.effect("creates, gets, lists and updates runs", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const sweep = yield* (yield* Sweeps).create({ grid: {} })
        const cell = (index: number) => ({ sweep: { sweepId: sweep.id, index, cell: {} } })
        const a = yield* store.createRun({ manifest: manifest({ label: "a", ...cell(0) }) })
        assert.match(a.id, /^r-\d{8}-\d{6}-[0-9a-z]{4}$/)
        assert.strictEqual(a.status, "created")
        assert.strictEqual(a.sweepId, sweep.id)
        assert.deepStrictEqual(a.counts, { total: 0, pending: 0, running: 0, done: 0, failed: 0 })
        const b = yield* store.createRun({ manifest: manifest({ label: "b", ...cell(1) }), id: unique("r-b") })
        const got = yield* store.getRun(a.id)
        assert.strictEqual(got.manifest.label, "a")
        assert.strictEqual(got.manifest.config.topK, 5)
        assert.strictEqual((yield* store.listRuns({ sweepId: sweep.id })).length, 2)

        const running = yield* store.setRunStatus(b.id, "running")
        assert.strictEqual(running.status, "running")
        assert.isDefined(running.startedAt)
        const done = yield* store.setRunStatus(b.id, "completed")
        assert.isDefined(done.finishedAt)
        assert.deepStrictEqual(done.startedAt, running.startedAt)
        const failed = yield* store.setRunStatus(a.id, "failed", "server down")
        assert.strictEqual(failed.message, "server down")
        const resumed = yield* store.setRunStatus(a.id, "running")
        assert.isUndefined(resumed.finishedAt)
        assert.isUndefined(resumed.message)
        const listed = yield* store.listRuns({ status: "completed", sweepId: sweep.id })
        assert.deepStrictEqual(listed.map((r) => r.id), [b.id])
        const dup = yield* Effect.flip(store.createRun({ manifest: manifest(), id: b.id }))
        assert.include(dup.message, "already exists")
      }))

    it.effect("run ids are time-sortable, unique under concurrency, and deterministic with a seeded Random", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 8, 7))
        const runs = yield* Effect.forEach(
          Array.from({ length: 50 }),
          () => store.createRun({ manifest: manifest() }),
          { concurrency: 16 }
        )
        assert.strictEqual(new Set(runs.map((r) => r.id)).size, 50)
        assert.isTrue(runs.every((r) => r.id.startsWith("r-20261121-090807-")))
        const seeded = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withRandom(effect, Random.make("fixed"))
        assert.strictEqual(yield* seeded(makeRunId), yield* seeded(makeRunId))
        const a = yield* seeded(store.createRun({ manifest: manifest() }))
        const b = yield* seeded(store.createRun({ manifest: manifest() }))
        assert.strictEqual(a.id, yield* seeded(makeRunId))
        assert.notStrictEqual(b.id, a.id)
        assert.match(b.id, /^r-20261121-090807-[0-9a-z]{4}$/)
      }))

    it.effect("unknown runs and items fail with RunNotFound / ItemNotFound", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        for (
          const effect of [
            store.getRun("r-nope"),
            store.setRunStatus("r-nope", "running"),
            store.addItems("r-nope", [question("q1")]),
            store.pendingItems("r-nope"),
            store.itemCounts("r-nope"),
            store.markItemRunning("r-nope", "q1"),
            store.completeItem({ runId: "r-nope", itemId: "q1", result: result(question("q1")) })
          ]
        ) {
          const error = yield* Effect.flip(effect)
          assert.strictEqual(error._tag, "RunNotFound")
          assert.strictEqual(error.message, "run r-nope not found")
        }
        const run = yield* store.createRun({ manifest: manifest() })
        const error = yield* Effect.flip(store.markItemRunning(run.id, "q-missing"))
        assert.strictEqual(error._tag, "ItemNotFound")
      }))

    it.effect("items: added in order, known ids skipped, lifecycle and counts", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest() })
        const qs = ["q1", "q2", "q3", "q4"].map((id) => question(id))
        assert.deepStrictEqual(yield* store.addItems(run.id, qs), { added: 4, skipped: 0 })
        assert.deepStrictEqual(yield* store.addItems(run.id, [qs[0]!, question("q5"), question("q5")]), {
          added: 1,
          skipped: 2
        })
        assert.deepStrictEqual((yield* store.pendingItems(run.id)).map((i) => [i.itemId, i.seq]), [
          ["q1", 0],
          ["q2", 1],
          ["q3", 2],
          ["q4", 3],
          ["q5", 4]
        ])

        yield* store.markItemRunning(run.id, "q1")
        yield* store.completeItem({ runId: run.id, itemId: "q1", result: result(qs[0]!), elapsedMs: 5 })
        yield* store.markItemRunning(run.id, "q2")
        yield* store.failItem({ runId: run.id, itemId: "q2", error: { tag: "RoleError", message: "bad reply" } })
        yield* store.markItemRunning(run.id, "q3")

        assert.deepStrictEqual(yield* store.itemCounts(run.id), {
          total: 5,
          pending: 2,
          running: 1,
          done: 1,
          failed: 1
        })
        assert.deepStrictEqual((yield* store.getRun(run.id)).counts, yield* store.itemCounts(run.id))
        assert.deepStrictEqual((yield* store.pendingItems(run.id)).map((i) => i.itemId), ["q3", "q4", "q5"])
        assert.deepStrictEqual(
          (yield* store.pendingItems(run.id, { includeFailed: true })).map((i) => i.itemId),
          ["q2", "q3", "q4", "q5"]
        )

        const q1 = yield* store.getItem(run.id, "q1")
        assert.strictEqual(q1.status, "done")
        assert.strictEqual(q1.attempts, 1)
        assert.strictEqual(q1.result?.answer.text, "answer q1")
        assert.strictEqual(q1.elapsedMs, 5)
        assert.deepStrictEqual(q1.question, qs[0])
        const q2 = yield* store.getItem(run.id, "q2")
        assert.deepStrictEqual(q2.error, { tag: "RoleError", message: "bad reply" })

        const finished = yield* store.resultsPage(run.id)
        assert.deepStrictEqual(finished.map((i) => i.itemId), ["q1", "q2"])
      }))

    it.effect("addItems inserts in chunks, and concurrent adders to one run get distinct, contiguous positions", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest() })
        const batch = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => question(`${prefix}${i}`))
        assert.deepStrictEqual(yield* store.addItems(run.id, batch("a", 450)), { added: 450, skipped: 0 })
        const added = yield* Effect.forEach(
          ["b", "c", "d", "e"],
          (prefix) => store.addItems(run.id, [...batch(prefix, 60), ...batch("a", 5)]),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(added, Array.from({ length: 4 }, () => ({ added: 60, skipped: 5 })))
        const items = yield* store.pendingItems(run.id)
        assert.strictEqual(items.length, 690)
        assert.deepStrictEqual(items.map((i) => i.seq), Array.from({ length: 690 }, (_, i) => i))
        assert.deepStrictEqual(items.slice(0, 450).map((i) => i.itemId), batch("a", 450).map((q) => q.id))
        for (const prefix of ["b", "c", "d", "e"]) {
          const mine = items.filter((i) => i.itemId.startsWith(prefix))
          assert.strictEqual(mine[mine.length - 1]!.seq - mine[0]!.seq, 59, `${prefix}'s items are contiguous`)
        }
      }))

    it.effect("results streams every finished item across pages", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest() })
        const qs = Array.from({ length: 23 }, (_, i) => question(`q${String(i).padStart(2, "0")}`))
        yield* store.addItems(run.id, qs)
        for (const q of qs.filter((_, i) => i % 3 !== 0)) {
          yield* store.completeItem({ runId: run.id, itemId: q.id, result: result(q) })
        }
        const all = yield* Stream.runCollect(store.results(run.id, { limit: 4 }))
        assert.deepStrictEqual(
          Chunk.toReadonlyArray(all).map((i) => i.itemId),
          qs.filter((_, i) => i % 3 !== 0).map((q) => q.id)
        )
      }))

    it.effect("completing an item is one transaction: a failure inside leaves nothing written", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const journal = yield* Journal
        const run = yield* store.createRun({ manifest: manifest() })
        const q = question("q1")
        yield* store.addItems(run.id, [q])
        yield* store.markItemRunning(run.id, "q1")
        const entry = (seq: number, requestHash: string) => ({
          runId: run.id,
          itemId: "q1",
          seq,
          kind: "judge",
          requestHash,
          response: { better: true },
          latencyMs: 3
        })
        yield* journal.append({ ...entry(2, "h2"), response: 1, latencyMs: 1 })
        // #0 and #1 are inserted, then #2 conflicts with the stored entry: the whole step must roll back.
        const exit = yield* Effect.exit(
          store.completeItem({
            runId: run.id,
            itemId: "q1",
            result: result(q),
            journal: [entry(0, "h0"), entry(1, "h1"), entry(2, "other")]
          })
        )
        assert.isTrue(Exit.isFailure(exit))
        const error = yield* Effect.flip(exit)
        assert.strictEqual(error._tag, "JournalMismatch")
        const item = yield* store.getItem(run.id, "q1")
        assert.strictEqual(item.status, "running")
        assert.isUndefined(item.result)
        assert.deepStrictEqual((yield* journal.entries(run.id, "q1")).map((e) => e.seq), [2])

        yield* store.completeItem({
          runId: run.id,
          itemId: "q1",
          result: result(q),
          journal: [entry(0, "h0"), entry(1, "h1"), entry(2, "h2")]
        })
        assert.strictEqual((yield* store.getItem(run.id, "q1")).status, "done")
        assert.deepStrictEqual((yield* journal.entries(run.id, "q1")).map((e) => e.seq), [0, 1, 2])
      }))

    it.effect("runs of a sweep are listed by sweep; an unknown sweep is refused", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const sweeps = yield* Sweeps
        const sweep = yield* sweeps.create({ grid: { topK: [3, 5] }, label: "k" })
        assert.match(sweep.id, /^s-/)
        for (const [index, topK] of [3, 5].entries()) {
          yield* store.createRun({ manifest: manifest({ sweep: { sweepId: sweep.id, index, cell: { topK } } }) })
        }
        yield* store.createRun({ manifest: manifest() })
        assert.strictEqual((yield* store.listRuns({ sweepId: sweep.id })).length, 2)
        assert.deepStrictEqual((yield* sweeps.get(sweep.id)).grid, { topK: [3, 5] })
        assert.isTrue((yield* sweeps.list).some((s) => s.id === sweep.id && s.label === "k"))
        const error = yield* Effect.flip(
          store.createRun({ manifest: manifest({ sweep: { sweepId: "s-x", index: 0, cell: {} } }) })
        )
        assert.strictEqual(error._tag, "SweepNotFound")
        assert.strictEqual((yield* Effect.flip(sweeps.get("s-x")))._tag, "SweepNotFound")
      }))
  })
