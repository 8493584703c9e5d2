import { assert, describe } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { RunOwners, RunStore, TenantQuotas } from "../../src/index.js"
import { manifest, unique } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

export const tenantQuotasSuite = (it: SuiteIt) =>
  describe("TenantQuotas", () => {
    it.effect("concurrent admissions of one tenant never exceed its limit", () =>
      Effect.gen(function*() {
        const quotas = yield* TenantQuotas
        const store = yield* RunStore
        const owners = yield* RunOwners
        const tenant = unique("acme")
        const create = Effect.gen(function*() {
          const run = yield* store.createRun({ manifest: manifest(), execution: "queue" })
          yield* owners.record(run.id, tenant)
          return run.id
        })
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 8 }, () => 0),
          () => Effect.either(quotas.admit(tenant, 2, create)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(outcomes.filter((o) => o._tag === "Right").length, 2)
        const refused = outcomes.find((o) => o._tag === "Left")
        assert.isTrue(refused?._tag === "Left" && refused.left._tag === "TooManyRuns")
        assert.strictEqual(yield* quotas.activeRuns(tenant), 2)
        // a finished run frees its slot
        const [first] = outcomes.flatMap((o) => (o._tag === "Right" ? [o.right] : []))
        yield* store.setRunStatus(first!, "completed")
        assert.strictEqual(yield* quotas.activeRuns(tenant), 1)
      }))

    it.effect("requests are counted per tenant per minute", () =>
      Effect.gen(function*() {
        const quotas = yield* TenantQuotas
        const tenant = unique("beta")
        yield* TestClock.setTime(120_000 + 5_000)
        assert.strictEqual((yield* quotas.countRequest(tenant)).count, 1)
        const second = yield* quotas.countRequest(tenant)
        assert.strictEqual(second.count, 2)
        assert.strictEqual(second.windowEndsAt, 180_000)
        assert.strictEqual((yield* quotas.countRequest(unique("other"))).count, 1)
        yield* TestClock.setTime(180_000 + 1)
        assert.strictEqual((yield* quotas.countRequest(tenant)).count, 1)
      }))
  })
