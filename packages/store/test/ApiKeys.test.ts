import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { ApiKeys, RunOwners, RunStore, StoreDatabase } from "../src/index.js"
import { manifest } from "./fixtures.js"

const database = StoreDatabase.layer({ filename: ":memory:" })
const withKeys = (pepper: string) =>
  Layer.mergeAll(ApiKeys.layer(Redacted.make(pepper)), RunOwners.layer, RunStore.layer).pipe(
    Layer.provideMerge(database)
  )

describe("ApiKeys", () => {
  it.effect("creates keys that verify, stores only a keyed hash, lists and revokes", () =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const created = yield* keys.create({ tenantId: "acme", label: "ci" })
      const key = Redacted.value(created.key)
      assert.match(key, /^dn_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/)
      const principal = yield* keys.verify(created.key)
      assert.isTrue(Option.isSome(principal))
      if (Option.isSome(principal)) {
        assert.strictEqual(principal.value.tenant.id, "acme")
        assert.strictEqual(principal.value.key.label, "ci")
      }
      const tampered = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")
      assert.isTrue(Option.isNone(yield* keys.verify(Redacted.make(tampered))))
      assert.isTrue(Option.isNone(yield* keys.verify(Redacted.make("not-a-key"))))
      assert.isTrue(Option.isNone(yield* keys.verify(Redacted.make(""))))

      const listed = yield* keys.list()
      assert.strictEqual(listed.length, 1)
      assert.notInclude(JSON.stringify(listed), key.split("_")[2]!)

      const revoked = yield* keys.revoke(created.record.id)
      assert.isDefined(revoked.revokedAt)
      assert.isTrue(Option.isNone(yield* keys.verify(created.key)))
      const missing = yield* Effect.flip(keys.revoke("nope"))
      assert.strictEqual(missing._tag, "KeyNotFound")
    }).pipe(Effect.provide(withKeys("pepper-1"))))

  it.effect("a different pepper does not verify the same key; tenant ids are checked; quotas are stored", () =>
    Effect.gen(function*() {
      const keys = yield* ApiKeys
      const created = yield* keys.create({ tenantId: "t1" })
      assert.isTrue(Option.isSome(yield* keys.verify(created.key)))
      const other = yield* ApiKeys.make(Redacted.make("pepper-2"))
      assert.isTrue(Option.isNone(yield* other.verify(created.key)))
      const bad = yield* Effect.flip(keys.create({ tenantId: "Bad__Tenant" }))
      assert.strictEqual(bad._tag, "InvalidTenant")
      const tenant = yield* keys.ensureTenant("t1", { quota: { requestsPerMinute: 5, maxConcurrentRuns: 1 } })
      assert.deepStrictEqual(tenant.quota, { requestsPerMinute: 5, maxConcurrentRuns: 1 })
    }).pipe(Effect.provide(withKeys("pepper-1"))))
})

describe("RunOwners", () => {
  it.effect("records owners, lists a tenant's runs, and the unfinished runs with auto-resume on", () =>
    Effect.gen(function*() {
      const owners = yield* RunOwners
      const store = yield* RunStore
      const a = yield* store.createRun({ manifest: manifest() })
      const b = yield* store.createRun({ manifest: manifest() })
      yield* owners.record(a.id, "t1")
      yield* owners.record(b.id, "t2")
      assert.deepStrictEqual(yield* owners.runsOf("t1"), [a.id])
      assert.strictEqual(Option.getOrThrow(yield* owners.get(b.id)).tenantId, "t2")
      assert.isTrue(Option.isNone(yield* owners.get("r-none")))
      assert.deepStrictEqual((yield* owners.unfinished).map((o) => o.runId).sort(), [a.id, b.id].sort())
      yield* owners.setAutoResume(a.id, false)
      yield* store.setRunStatus(b.id, "completed")
      assert.deepStrictEqual(yield* owners.unfinished, [])
    }).pipe(Effect.provide(withKeys("p"))))
})
