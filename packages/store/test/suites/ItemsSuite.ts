import { assert, describe } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { RunStore } from "../../src/index.js"
import { manifest, question, result } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

export const itemsSuite = (it: SuiteIt) =>
  describe("RunStore items", () => {
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
  })
