import { processOwner, RunEvents, RunExecutor } from "@deepnote-rag/runs"
import { RunLeases, RunStore } from "@deepnote-rag/store"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue } from "effect"
import { spawn } from "node:child_process"
import { type CallCounter, countingEngine, sampleHome } from "./Engine.js"
import { memoryServices, newRun } from "./Runs.js"

describe("runs: one owner per run", () => {
  it.scopedLive("a second execution is refused naming the owner, or waits and then finds nothing left to do", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const executor = yield* RunExecutor
      const runId = yield* newRun(8)
      const events = yield* (yield* RunEvents).subscribe
      const first: CallCounter = { calls: 0 }
      const owner = processOwner("first")
      const running = yield* Effect.fork(
        executor.execute(runId, { engine: countingEngine(home, first), concurrency: 1, owner })
      )
      while ((yield* Queue.take(events))._tag !== "ItemDone") {
        // wait until the first execution holds the lease and has finished a question
      }
      const second: CallCounter = { calls: 0 }
      const refused = yield* Effect.flip(
        executor.execute(runId, { engine: countingEngine(home, second), concurrency: 4, owner: processOwner("second") })
      )
      assert.strictEqual(refused._tag, "RunBusy")
      assert.include(refused.message, "first on")
      assert.include(refused.message, `pid ${process.pid}`)

      const waited = yield* executor.execute(runId, {
        engine: countingEngine(home, second),
        concurrency: 4,
        owner: processOwner("waiting"),
        waitForLease: true,
        leaseTtl: "3 seconds"
      })
      const done = yield* Fiber.join(running)
      assert.strictEqual(done.status, "completed")
      assert.isTrue(waited.nothingToDo)
      assert.strictEqual(second.calls, 0) // no call was made twice
      assert.strictEqual((yield* (yield* RunStore).getRun(runId)).counts.done, 8)
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("a lease whose owner died expires and is taken over; the new owner finishes the run", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const executor = yield* RunExecutor
      const runId = yield* newRun(4)
      // a process that took the lease and died (no heartbeat, no release)
      const dead = processOwner("dead")
      const taken = yield* (yield* RunLeases).acquire(runId, dead, "1 second")
      assert.strictEqual(taken._tag, "Acquired")
      const refused = yield* Effect.flip(
        executor.execute(runId, {
          engine: countingEngine(home, { calls: 0 }),
          concurrency: 2,
          owner: processOwner("a")
        })
      )
      assert.strictEqual(refused._tag, "RunBusy")
      yield* Effect.sleep("1200 millis")
      const summary = yield* executor.execute(runId, {
        engine: countingEngine(home, { calls: 0 }),
        concurrency: 2,
        owner: processOwner("b")
      })
      assert.strictEqual(summary.status, "completed")
      assert.strictEqual(summary.counts.done, 4)
      const lease = yield* (yield* RunLeases).get(runId)
      assert.strictEqual(lease._tag, "None") // released at the end
    }).pipe(Effect.provide(memoryServices)))

  it.scopedLive("a lease held by a process of this machine that is gone is taken over at once", () =>
    Effect.gen(function*() {
      const home = yield* sampleHome
      const executor = yield* RunExecutor
      const runId = yield* newRun(2)
      // a process that existed on this machine and exited (as after kill -9), holding a long lease
      const gone = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const child = spawn(process.execPath, ["-e", ""])
          child.on("exit", () => resolve(child.pid ?? 0))
        })
      )
      const dead = { ...processOwner("killed run"), pid: gone }
      assert.strictEqual((yield* (yield* RunLeases).acquire(runId, dead, "10 minutes"))._tag, "Acquired")
      const summary = yield* executor.execute(runId, {
        engine: countingEngine(home, { calls: 0 }),
        concurrency: 2,
        owner: processOwner("resume")
      })
      assert.strictEqual(summary.status, "completed")
    }).pipe(Effect.provide(memoryServices)))
})
