import { SqlClient } from "@effect/sql"
import { assert, describe } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { ApiKeys, IngestJobLog, RunOwners, RunStore } from "../../src/index.js"
import { byteOrder, jsonTextField } from "../../src/internal/sql.js"
import { manifest, unique } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

export const tenantsSuite = (it: SuiteIt) =>
  describe("ApiKeys, RunOwners, IngestJobLog", () => {
    it.effect("creates keys that verify, stores only a keyed hash, lists and revokes", () =>
      Effect.gen(function*() {
        const keys = yield* ApiKeys
        const tenantId = unique("acme")
        const created = yield* keys.create({ tenantId, label: "ci" })
        const key = Redacted.value(created.key)
        assert.match(key, /^dn_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/)
        const principal = yield* keys.verify(created.key)
        assert.isTrue(Option.isSome(principal))
        if (Option.isSome(principal)) {
          assert.strictEqual(principal.value.tenant.id, tenantId)
          assert.strictEqual(principal.value.key.label, "ci")
        }
        const tampered = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")
        assert.isTrue(Option.isNone(yield* keys.verify(Redacted.make(tampered))))
        assert.isTrue(Option.isNone(yield* keys.verify(Redacted.make("not-a-key"))))
        assert.isTrue(Option.isNone(yield* keys.verify(Redacted.make(""))))

        const listed = yield* keys.list({ tenantId })
        assert.strictEqual(listed.length, 1)
        assert.notInclude(JSON.stringify(listed), key.slice(key.indexOf("_", 3) + 1), "the secret is not stored")
        assert.isTrue((yield* keys.list()).some((k) => k.id === created.record.id))

        const revoked = yield* keys.revoke(created.record.id)
        assert.isDefined(revoked.revokedAt)
        assert.isTrue(Option.isNone(yield* keys.verify(created.key)))
        const missing = yield* Effect.flip(keys.revoke("nope"))
        assert.strictEqual(missing._tag, "KeyNotFound")
      }))

    it.effect("a different pepper does not verify the same key; tenant ids are checked; quotas are stored", () =>
      Effect.gen(function*() {
        const keys = yield* ApiKeys
        const tenantId = unique("t1")
        const created = yield* keys.create({ tenantId })
        assert.isTrue(Option.isSome(yield* keys.verify(created.key)))
        const other = yield* ApiKeys.make(Redacted.make("pepper-2"))
        assert.isTrue(Option.isNone(yield* other.verify(created.key)))
        const bad = yield* Effect.flip(keys.create({ tenantId: "Bad__Tenant" }))
        assert.strictEqual(bad._tag, "InvalidTenant")
        const tenant = yield* keys.ensureTenant(tenantId, { quota: { requestsPerMinute: 5, maxConcurrentRuns: 1 } })
        assert.deepStrictEqual(tenant.quota, { requestsPerMinute: 5, maxConcurrentRuns: 1 })
        assert.deepStrictEqual((yield* keys.ensureTenant(tenantId)).quota, tenant.quota)
        assert.isTrue(Option.isNone(yield* keys.getTenant(unique("nobody"))))
      }))

    it.effect("records owners, lists a tenant's runs, and the unfinished runs with auto-resume on", () =>
      Effect.gen(function*() {
        const owners = yield* RunOwners
        const store = yield* RunStore
        const [t1, t2] = [unique("t1"), unique("t2")]
        const a = yield* store.createRun({ manifest: manifest() })
        const b = yield* store.createRun({ manifest: manifest() })
        yield* owners.record(a.id, t1)
        yield* owners.record(b.id, t2)
        assert.deepStrictEqual(yield* owners.runsOf(t1), [a.id])
        // a page at a time: the tenant's runs after `before`, newest first
        const c = yield* store.createRun({ manifest: manifest() })
        yield* owners.record(c.id, t1)
        const whole = yield* owners.runsOf(t1)
        assert.deepStrictEqual([...whole].sort(), [a.id, c.id].sort())
        const first = yield* owners.runsOf(t1, { limit: 1 })
        const second = yield* owners.runsOf(t1, { limit: 1, before: first[0] })
        assert.deepStrictEqual([...first, ...second], whole)
        assert.deepStrictEqual(yield* owners.runsOf(t1, { before: second[0] }), [])
        assert.deepStrictEqual(yield* owners.runsOf(t1, { before: b.id }), [], "another tenant's run is no cursor")
        // by dataset: the tenant's runs over one dataset (the manifest's hash), paged as before
        const dataset = unique("data")
        const d = yield* store.createRun({ manifest: manifest({ dataset: { path: "other.jsonl", hash: dataset } }) })
        yield* owners.record(d.id, t1)
        const e = yield* store.createRun({ manifest: manifest({ dataset: { path: "other.jsonl", hash: dataset } }) })
        yield* owners.record(e.id, t2)
        assert.deepStrictEqual(yield* owners.runsOf(t1, { datasetHash: dataset }), [d.id])
        assert.deepStrictEqual(yield* owners.runsOf(t1, { datasetHash: dataset, before: d.id }), [])
        assert.deepStrictEqual([...(yield* owners.runsOf(t1, { datasetHash: "data-hash" }))].sort(), [...whole].sort())
        assert.sameMembers(
          (yield* store.listRuns({ datasetHash: dataset })).map((r) => r.id),
          [d.id, e.id],
          "the home's runs over that dataset"
        )
        assert.deepStrictEqual(yield* owners.get(b.id), Option.some({ runId: b.id, tenantId: t2, autoResume: true }))
        assert.isTrue(Option.isNone(yield* owners.get("r-none")))
        const ours = (list: ReadonlyArray<{ readonly runId: string }>) =>
          list.map((o) => o.runId).filter((id) => id === a.id || id === b.id).sort()
        assert.deepStrictEqual(ours(yield* owners.unfinished), [a.id, b.id].sort())
        yield* owners.setAutoResume(a.id, false)
        assert.strictEqual(Option.getOrThrow(yield* owners.get(a.id)).autoResume, false)
        yield* store.setRunStatus(b.id, "completed")
        assert.deepStrictEqual(ours(yield* owners.unfinished), [])
      }))

    it.effect("runs are listed newest first from an index (migration 15), with or without the dataset filter", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // the expression and the order RunStore.listRuns and RunOwners.runsOf use
        const datasetHash = jsonTextField(sql, "r.manifest", ["dataset", "hash"])
        const text = byteOrder(sql)
        const newest = sql`ORDER BY r.created_at${text} DESC, r.id${text} DESC LIMIT 7`
        const queries = [
          [sql`SELECT r.id FROM runs r ${newest}`, "runs_newest"],
          [sql`SELECT r.id FROM runs r WHERE ${datasetHash} = ${"h"} ${newest}`, "runs_dataset_newest"],
          [
            sql`SELECT o.run_id FROM run_owners o WHERE o.tenant_id = ${"t"}
              ORDER BY o.created_at${text} DESC, o.run_id${text} DESC LIMIT 7`,
            "run_owners_tenant_newest"
          ]
        ] as const
        for (const [query, index] of queries) {
          const plan = yield* sql.onDialectOrElse({
            // told not to scan or sort, Postgres still does when no index serves the query (a tiny table is scanned
            // and sorted anyway)
            pg: () =>
              sql.withTransaction(
                Effect.zipRight(
                  Effect.zipRight(sql`SET LOCAL enable_seqscan = off`, sql`SET LOCAL enable_sort = off`),
                  sql<{ readonly "QUERY PLAN": string }>`EXPLAIN ${query}`
                )
              ).pipe(Effect.map((rows) => rows.map((row) => row["QUERY PLAN"]))),
            orElse: () =>
              sql<{ readonly detail: string }>`EXPLAIN QUERY PLAN ${query}`.pipe(
                Effect.map((rows) => rows.map((row) => row.detail))
              )
          })
          const shown = plan.join("\n")
          assert.isTrue(plan.some((line) => line.includes(index)), shown)
          assert.isFalse(plan.some((line) => /TEMP B-TREE|Sort/u.test(line)), shown)
        }
      }))

    it.effect("ingest jobs are recorded, updated, interrupted when left unfinished, and pruned", () =>
      Effect.gen(function*() {
        const jobs = yield* IngestJobLog
        const job = (id: string, createdAt: string) => ({
          id,
          tenantId: "t",
          collection: "c",
          status: "queued" as const,
          received: 10,
          added: 0,
          skipped: 0,
          message: undefined,
          createdAt,
          finishedAt: undefined
        })
        const [done, left] = [unique("j-done"), unique("j-left")]
        yield* jobs.create(job(done, "2000-01-01T00:00:00.000Z"))
        yield* jobs.create(job(left, "2000-01-01T00:00:01.000Z"))
        const live = unique("j-live")
        yield* jobs.create({ ...job(live, "2000-01-01T00:00:02.000Z"), status: "running", owner: "other-host:1:abc" })
        yield* jobs.update(done, { status: "done", added: 7, skipped: 3, finishedAt: "2000-01-01T00:01:00.000Z" })
        yield* jobs.update(done, {})
        const got = Option.getOrThrow(yield* jobs.get(done))
        assert.deepStrictEqual([got.status, got.added, got.skipped, got.finishedAt], [
          "done",
          7,
          3,
          "2000-01-01T00:01:00.000Z"
        ])
        // a job of a live process (another replica) is left alone; one without an owner is an orphan
        assert.isTrue((yield* jobs.interruptOrphaned((j) => j.owner === undefined)) >= 1)
        assert.strictEqual(Option.getOrThrow(yield* jobs.get(live)).status, "running")
        const interrupted = Option.getOrThrow(yield* jobs.get(left))
        assert.strictEqual(interrupted.status, "interrupted")
        assert.include(interrupted.message, "upload it again")
        assert.isTrue(Option.isNone(yield* jobs.get("j-none")))
        assert.isTrue((yield* jobs.prune(1)) >= 1)
        assert.isTrue(Option.isNone(yield* jobs.get(done)), "the oldest jobs are pruned")
      }))
  })
