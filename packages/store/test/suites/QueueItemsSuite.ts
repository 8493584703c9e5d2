import { assert, describe } from "@effect/vitest"
import { Effect } from "effect"
import { type ItemClaim, RunStore } from "../../src/index.js"
import { manifest, question, result } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

const tagOf = (claim: ItemClaim) => claim._tag === "Claimed" ? `claimed@${claim.item.attempts}` : claim.status

export const queueItemsSuite = (it: SuiteIt) =>
  describe("RunStore queue items", () => {
    it.effect("a queued run is started by its first question, but a cancel made meanwhile stands", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest(), execution: "queue" })
        assert.strictEqual(run.status, "created")
        assert.isTrue(yield* store.startQueuedRun(run.id))
        assert.strictEqual((yield* store.getRun(run.id)).status, "running")
        assert.isFalse(yield* store.startQueuedRun(run.id), "already running: nothing to start")
        const cancelled = yield* store.createRun({ manifest: manifest(), execution: "queue" })
        yield* store.setRunStatus(cancelled.id, "interrupted", "cancelled")
        assert.isFalse(yield* store.startQueuedRun(cancelled.id))
        const after = yield* store.getRun(cancelled.id)
        assert.deepStrictEqual([after.status, after.message], ["interrupted", "cancelled"])
        assert.isFalse(yield* store.startQueuedRun("r-nope"))
      }))

    it.effect("a question is claimed by one job at a time; the same job may take it over; done is final", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const run = yield* store.createRun({ manifest: manifest(), execution: "queue" })
        assert.strictEqual(run.execution, "queue")
        yield* store.addItems(run.id, [question("q1"), question("q2")])

        // job A claims q1; job B (another generation) may not while A holds it; A again may (its worker died)
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q1", "job-a")), "claimed@1")
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q1", "job-b")), "running")
        const retaken = yield* store.claimItem(run.id, "q1", "job-a")
        assert.strictEqual(tagOf(retaken), "claimed@2")
        assert.isTrue(retaken._tag === "Claimed" && retaken.item.status === "running") // resumes what A started

        // done once: a second completion (two workers raced) changes nothing
        yield* store.completeItem({ runId: run.id, itemId: "q1", result: result(question("q1")), elapsedMs: 1 })
        yield* store.completeItem({
          runId: run.id,
          itemId: "q1",
          result: result(question("q1"), "other"),
          elapsedMs: 2
        })
        const q1 = yield* store.getItem(run.id, "q1")
        assert.strictEqual(q1.result?.answer.text, "answer q1")
        assert.strictEqual(q1.elapsedMs, 1)
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q1", "job-c")), "done")

        // a cancelled run gives its question back; a failed question is retried by a later job, not the one that failed it
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q2", "job-d")), "claimed@1")
        yield* store.releaseItem(run.id, "q2", "job-x") // not its holder: nothing happens
        assert.strictEqual((yield* store.getItem(run.id, "q2")).status, "running")
        yield* store.releaseItem(run.id, "q2", "job-d")
        assert.strictEqual((yield* store.getItem(run.id, "q2")).status, "pending")
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q2", "job-e")), "claimed@2")
        yield* store.failItem({ runId: run.id, itemId: "q2", error: { tag: "RoleError", message: "bad" } })
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q2", "job-e")), "failed")
        assert.strictEqual(tagOf(yield* store.claimItem(run.id, "q2", "job-f")), "claimed@3")

        assert.strictEqual(yield* store.nextQueueGeneration(run.id), 1)
        assert.strictEqual(yield* store.nextQueueGeneration(run.id), 2)
        assert.strictEqual((yield* store.getRun(run.id)).queueGeneration, 2)
      }))
  })
