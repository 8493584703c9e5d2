import { assert, describe } from "@effect/vitest"
import { Effect, Option, TestClock, TestServices } from "effect"
import { type LeaseAcquisition, type LeaseOwner, RunLeases, RunStore } from "../../src/index.js"
import { manifest } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

const owner = (id: string): LeaseOwner => ({ id, host: `host-${id}`, pid: 100, label: `worker ${id}` })

/**
 * Repeats `attempt` until it returns `Acquired`. SQLite's lease clock is the Clock service, moved on by TestClock
 * here; Postgres's is the database's own, so there the loop waits on the real clock until the lease has expired.
 */
const untilAcquired = (attempt: Effect.Effect<LeaseAcquisition, unknown, RunLeases>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      yield* TestClock.adjust("1 minute")
      const result = yield* attempt
      if (result._tag === "Acquired") return result
      yield* TestServices.provideLive(Effect.sleep("50 millis"))
    }
    return assert.fail("the lease never expired")
  })

export const runLeasesSuite = (it: SuiteIt) =>
  describe("RunLeases", () => {
    it.effect("of concurrent acquirers exactly one wins; the others see the holder", () =>
      Effect.gen(function*() {
        const leases = yield* RunLeases
        const run = yield* (yield* RunStore).createRun({ manifest: manifest() })
        assert.isTrue(Option.isNone(yield* leases.get(run.id)))
        const results = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => owner(`w${i}`)),
          (o) => leases.acquire(run.id, o, "1 minute"),
          { concurrency: "unbounded" }
        )
        const winners = results.filter((r) => r._tag === "Acquired")
        assert.strictEqual(winners.length, 1)
        const winner = winners[0]!.lease.owner
        for (const r of results) {
          if (r._tag === "HeldBy") assert.deepStrictEqual(r.owner, winner)
        }
        const held = yield* leases.get(run.id)
        assert.deepStrictEqual(Option.map(held, (l) => l.owner), Option.some(winner))
        // the holder acquiring again keeps (and extends) its lease
        assert.strictEqual((yield* leases.acquire(run.id, winner, "1 minute"))._tag, "Acquired")
        const error = yield* Effect.flip(leases.acquire("r-nope", winner, "1 minute"))
        assert.strictEqual(error._tag, "RunNotFound")
      }))

    it.effect("an expired lease is taken over; the old owner's renew fails with LeaseLost; release frees it", () =>
      Effect.gen(function*() {
        const leases = yield* RunLeases
        const run = yield* (yield* RunStore).createRun({ manifest: manifest() })
        const [a, b] = [owner("a"), owner("b")]
        const first = yield* leases.acquire(run.id, a, "2 seconds")
        assert.strictEqual(first._tag, "Acquired")
        const held = yield* leases.acquire(run.id, b, "1 minute")
        assert.strictEqual(held._tag, "HeldBy")
        if (held._tag === "HeldBy") {
          assert.deepStrictEqual(held.owner, a)
          assert.isTrue(held.expiresAt.getTime() > held.heartbeatAt.getTime())
        }
        const renewed = yield* leases.renew(run.id, a.id, "2 seconds")
        assert.deepStrictEqual(renewed.owner, a)

        const taken = yield* untilAcquired(leases.acquire(run.id, b, "1 minute"))
        assert.deepStrictEqual(taken.lease.owner, b)
        const lost = yield* Effect.flip(leases.renew(run.id, a.id, "1 minute"))
        assert.strictEqual(lost._tag, "LeaseLost")
        if (lost._tag === "LeaseLost") {
          assert.strictEqual(lost.heldBy, "b")
          assert.include(lost.message, "now held by b")
        }
        // releasing someone else's lease does nothing
        yield* leases.release(run.id, a.id)
        assert.deepStrictEqual(Option.map(yield* leases.get(run.id), (l) => l.owner.id), Option.some("b"))
        yield* leases.release(run.id, b.id)
        assert.isTrue(Option.isNone(yield* leases.get(run.id)))
        const lostAfterRelease = yield* Effect.flip(leases.renew(run.id, b.id, "1 minute"))
        assert.strictEqual(lostAfterRelease._tag, "LeaseLost")
        const again = yield* leases.acquire(run.id, { id: "c", host: "h", pid: 1 }, "1 minute")
        assert.strictEqual(again._tag, "Acquired")
        if (again._tag === "Acquired") assert.isUndefined(again.lease.owner.label)
      }))
  })
