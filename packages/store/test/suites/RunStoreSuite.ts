import { assert, describe } from "@effect/vitest"
import { Effect, Exit, Random, TestClock } from "effect"
import { Journal, makeRunId, RunOwners, RunStore, Sweeps } from "../../src/index.js"
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

    it.effect("runs are listed a page at a time: after `before`, newest first, ties by id", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        // one sweep keeps the listing to this test's runs; the test clock stands still, so all share one created_at
        const sweep = yield* (yield* Sweeps).create({ grid: {} })
        const created: Array<string> = []
        for (const index of [0, 1, 2, 3, 4]) {
          const run = yield* store.createRun({ manifest: manifest({ sweep: { sweepId: sweep.id, index, cell: {} } }) })
          created.push(run.id)
        }
        const all = (yield* store.listRuns({ sweepId: sweep.id })).map((r) => r.id)
        assert.deepStrictEqual([...all].sort(), [...created].sort())
        const paged: Array<string> = []
        let before: string | undefined
        for (;;) {
          const page = yield* store.listRuns({ sweepId: sweep.id, limit: 2, before })
          paged.push(...page.map((r) => r.id))
          if (page.length < 2) break
          before = page.at(-1)!.id
        }
        assert.deepStrictEqual(paged, all, "the pages, in order, are the whole listing once")
        assert.deepStrictEqual(yield* store.listRuns({ sweepId: sweep.id, before: "r-none" }), [])
      }))

    it.effect("sweeps are listed a page at a time, newest first, ties by id; or only those with a tenant's runs", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const sweeps = yield* Sweeps
        const owners = yield* RunOwners
        // a tenant of this test's own keeps the listing to its sweeps; the test clock stands still (one created_at)
        const tenant = unique("t-sweeps")
        const made: Array<string> = []
        for (const index of [0, 1, 2, 3, 4]) {
          const sweep = yield* sweeps.create({ grid: { topK: [index] } })
          const run = yield* store.createRun({
            manifest: manifest({ sweep: { sweepId: sweep.id, index: 0, cell: {} } })
          })
          // the third sweep's run is the CLI's (no owner): not one of the tenant's sweeps
          if (index !== 2) yield* owners.record(run.id, tenant)
          made.push(sweep.id)
        }
        const whole = (yield* sweeps.list({ withRunsOf: tenant })).map((s) => s.id)
        assert.deepStrictEqual(whole, made.filter((_, i) => i !== 2).sort().reverse())
        const paged: Array<string> = []
        let before: string | undefined
        for (;;) {
          const page = yield* sweeps.list({ withRunsOf: tenant, limit: 2, before })
          paged.push(...page.map((s) => s.id))
          if (page.length < 2) break
          before = page.at(-1)!.id
        }
        assert.deepStrictEqual(paged, whole, "the pages, in order, are the whole listing once")
        const home = (yield* sweeps.list({ limit: 1000 })).map((s) => s.id)
        assert.includeMembers(home, made, "without a tenant: every sweep of the home")
        assert.deepStrictEqual(yield* sweeps.list({ before: "s-none" }), [])
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
        assert.isTrue((yield* sweeps.list()).some((s) => s.id === sweep.id && s.label === "k"))
        const error = yield* Effect.flip(
          store.createRun({ manifest: manifest({ sweep: { sweepId: "s-x", index: 0, cell: {} } }) })
        )
        assert.strictEqual(error._tag, "SweepNotFound")
        assert.strictEqual((yield* Effect.flip(sweeps.get("s-x")))._tag, "SweepNotFound")
      }))
  })
