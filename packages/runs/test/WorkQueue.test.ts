import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient, Statement } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Option, Ref } from "effect"
import * as Path from "node:path"
import { jobId, type QuestionJob, queueTable, WorkQueue } from "../src/Queue/WorkQueue.js"

const QueueLive = WorkQueue.layer({ pollInterval: "20 millis", lockExpiration: "5 seconds" }).pipe(
  Layer.provide(SqliteClient.layer({ filename: ":memory:" }))
)

/** The queue with its database, for tests that also read and write the queue's table. */
const QueueAndDatabase = WorkQueue.layer({ pollInterval: "20 millis", lockExpiration: "5 seconds" }).pipe(
  Layer.provideMerge(SqliteClient.layer({ filename: ":memory:" }))
)

const job = (itemId: string, generation = 0): QuestionJob => ({ runId: "r-1", itemId, generation })

describe("WorkQueue over SqlPersistedQueue (SQLite)", () => {
  it.scopedLive("each job is taken once; the same job offered twice is enqueued once", () =>
    Effect.gen(function*() {
      const queue = yield* WorkQueue
      yield* queue.offer([job("a"), job("b"), job("c"), job("a")])
      const seen = yield* Ref.make<Array<string>>([])
      const takers = yield* Effect.forEach(
        [1, 2],
        () => Effect.fork(Effect.forever(queue.take((j) => Ref.update(seen, (s) => [...s, j.itemId])))),
        { concurrency: 2 }
      )
      while ((yield* Ref.get(seen)).length < 3) yield* Effect.sleep("20 millis")
      yield* Effect.sleep("100 millis")
      yield* Effect.forEach(takers, Fiber.interrupt)
      assert.deepStrictEqual([...(yield* Ref.get(seen))].sort(), ["a", "b", "c"])
      // a new generation of the same question is a new job (a resume enqueues again)
      yield* queue.offer([job("a", 1)])
      const again = yield* queue.take((j) => Effect.succeed(`${j.itemId}@${j.generation}`))
      assert.strictEqual(again, "a@1")
    }).pipe(Effect.provide(QueueLive)))

  it.scopedLive("a failed handler returns the job with one more attempt; an interrupted one with none", () =>
    Effect.gen(function*() {
      const queue = yield* WorkQueue
      yield* queue.offer([job("x")])
      const failed = yield* Effect.either(queue.take(() => Effect.fail("store unreachable")))
      assert.isTrue(failed._tag === "Left")
      const attempts = yield* queue.take((_, meta) => Effect.succeed(meta.attempts))
      assert.strictEqual(attempts, 1)

      yield* queue.offer([job("y")])
      const started = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(
        queue.take(() => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(holder)
      const after = yield* queue.take((j, meta) => Effect.succeed([j.itemId, meta.attempts] as const))
      assert.deepStrictEqual(after, ["y", 0])
    }).pipe(Effect.provide(QueueLive)))

  it.scopedLive(
    "a job whose handler outlives the lock expiration stays with its live worker (its lock is renewed)",
    () =>
      Effect.gen(function*() {
        const dir = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())
        const db = SqliteClient.layer({ filename: Path.join(dir, "queue.sqlite") })
        // two workers (two queue instances) on one database, locks expiring after 2 s
        const worker = () =>
          WorkQueue.layer({ pollInterval: "50 millis", lockExpiration: "2 seconds" }).pipe(Layer.provide(db))
        const [first, second] = yield* Effect.all([
          Layer.build(worker()).pipe(Effect.map(Context.get(WorkQueue))),
          Layer.build(Layer.fresh(worker())).pipe(Effect.map(Context.get(WorkQueue)))
        ])
        yield* first.offer([job("slow")])
        const started = yield* Deferred.make<void>()
        const slow = yield* Effect.fork(
          first.take(() => Effect.zipRight(Deferred.succeed(started, undefined), Effect.sleep("5 seconds")))
        )
        yield* Deferred.await(started)
        // while the first worker runs it (2.5× the lock expiration), the second never gets it
        const stolen = yield* second.take((j) => Effect.succeed(j.itemId)).pipe(
          Effect.timeout("4500 millis"),
          Effect.option
        )
        assert.isTrue(Option.isNone(stolen), "the job was taken by a second worker while its first worker was alive")
        yield* Fiber.join(slow)
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 30_000 }
  )

  it.scopedLive(
    "a job another worker took over (its lock expired while the store could not be reached) is not held any more",
    () =>
      Effect.gen(function*() {
        const dir = yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())
        const db = SqliteClient.layer({ filename: Path.join(dir, "queue.sqlite") })
        // the first worker's renewals never come (as during an outage): its lock expires after 1 s
        const [first, second] = yield* Effect.all([
          Layer.build(
            WorkQueue.layer({ pollInterval: "50 millis", lockExpiration: "1 second", lockRefreshInterval: "1 hour" })
              .pipe(Layer.provide(db))
          ).pipe(Effect.map(Context.get(WorkQueue))),
          Layer.build(
            Layer.fresh(
              WorkQueue.layer({ pollInterval: "50 millis", lockExpiration: "1 second" }).pipe(Layer.provide(db))
            )
          ).pipe(Effect.map(Context.get(WorkQueue)))
        ])
        yield* first.offer([job("long")])
        const heldAtFirst = yield* Deferred.make<boolean>()
        const takenOver = yield* Deferred.make<void>()
        const checked = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(first.take((_, meta) =>
          Effect.gen(function*() {
            yield* Deferred.succeed(heldAtFirst, yield* meta.stillHeld)
            yield* Deferred.await(takenOver)
            return yield* meta.stillHeld
          })
        ))
        assert.isTrue(yield* Deferred.await(heldAtFirst), "a job just taken is held")
        const taker = yield* Effect.fork(second.take((j) =>
          Effect.zipRight(Deferred.succeed(takenOver, undefined), Effect.as(Deferred.await(checked), j.itemId))
        ))
        const heldAfter = yield* Fiber.join(holder)
        yield* Deferred.succeed(checked, undefined)
        assert.strictEqual(yield* Fiber.join(taker), "long")
        assert.isFalse(heldAfter, "the first worker still believed it held a job the second worker had taken over")
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 30_000 }
  )

  it.scopedLive(
    "a job taken over before its worker first looked at it: not held, and the other worker's lock is not renewed",
    () =>
      Effect.gen(function*() {
        const queue = yield* WorkQueue
        const sql = yield* SqlClient.SqlClient
        const other = "00000000-0000-4000-8000-000000000000"
        yield* queue.offer([job("early")])
        const id = jobId(job("early"))
        // the lock passes to another worker (an outage longer than the lock's expiry) between the poll that took the
        // job and the first statement about it that this worker makes: a worker that learned whose lock is its own
        // from that job would take the other worker's id for its own, for this job and every later one
        let stolen = false
        const stealFirst: Statement.Statement.Transformer = (statement, _sql, _refs, _span) =>
          stolen || !statement.compile()[1].includes(id)
            ? Effect.succeed(statement)
            : Effect.as(
              Statement.withTransformerDisabled(
                sql`UPDATE ${sql(queueTable)} SET acquired_by = ${other}, acquired_at = CURRENT_TIMESTAMP
                  WHERE id = ${id}`
              ).pipe(Effect.orDie, Effect.tap(() => (stolen = true))),
              statement
            )
        const held = yield* queue.take((_, meta) => meta.stillHeld).pipe(Statement.withTransformer(stealFirst))
        assert.isTrue(stolen, "the test never took the job over")
        assert.isFalse(held, "the worker believed it held a job another worker had taken over")
        const rows = yield* sql<{ readonly acquired_by: string | null }>`
          SELECT acquired_by FROM ${sql(queueTable)} WHERE id = ${id}`
        assert.deepStrictEqual(rows.map((row) => row.acquired_by), [other])
      }).pipe(Effect.provide(QueueAndDatabase)),
    { timeout: 30_000 }
  )

  it.scopedLive(
    "a handler's result stands when the queue cannot mark its job done (the store went away just after it)",
    () =>
      Effect.gen(function*() {
        const queue = yield* WorkQueue
        const sql = yield* SqlClient.SqlClient
        yield* queue.offer([job("z")])
        // the queue's table goes away as the handler ends: marking the job done fails for as long as it retries
        const result = yield* queue.take((j) =>
          Effect.as(sql`ALTER TABLE ${sql(queueTable)} RENAME TO away`, `answered ${j.itemId}`)
        )
        assert.strictEqual(result, "answered z")
        yield* sql`ALTER TABLE away RENAME TO ${sql(queueTable)}`
        const rows = yield* sql<{ readonly completed: number; readonly locked: number }>`
          SELECT completed, acquired_by IS NOT NULL AS locked FROM ${sql(queueTable)}`
        // not marked done, still locked: taken again when its lock expires, its question then found done
        assert.deepStrictEqual(rows.map((row) => [row.completed, row.locked]), [[0, 1]])
      }).pipe(Effect.provide(QueueAndDatabase)),
    { timeout: 30_000 }
  )
})
