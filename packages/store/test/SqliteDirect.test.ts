import * as Reactivity from "@effect/experimental/Reactivity"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber } from "effect"
import { makeSqliteConnection } from "../src/internal/sqliteConnection.js"
import type { SqliteDirectDatabase } from "../src/internal/sqliteDirect.js"

/** A direct transaction that inserts `id` into `t`. */
const insert = (id: string) => (db: SqliteDirectDatabase) => {
  db.statement("INSERT INTO t (id) VALUES (?)").run(id)
  return Either.right(id)
}

describe("SqliteDirect (the store's synchronous write path)", () => {
  it.live("waits for another fiber's open transaction and is not rolled back with it", () =>
    Effect.gen(function*() {
      const { client: sql, direct } = yield* makeSqliteConnection({ filename: ":memory:" })
      yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY)`
      const opened = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // another fiber's transaction, suspended between its statements, then rolled back
      const other = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (id) VALUES ('other')`
        yield* Deferred.succeed(opened, undefined)
        yield* Deferred.await(release)
        return yield* Effect.fail("rolled back")
      })))
      yield* Deferred.await(opened)
      const write = yield* Effect.fork(direct.transaction(insert("direct")))
      yield* Effect.sleep("20 millis")
      // the write waits for the connection: it must not run inside the open transaction
      assert.isNull(write.unsafePoll())
      yield* Deferred.succeed(release, undefined)
      assert.isTrue(Exit.isFailure(yield* Fiber.await(other)))
      assert.strictEqual(yield* Fiber.join(write), "direct")
      const rows = yield* sql<{ id: string }>`SELECT id FROM t ORDER BY id`
      assert.deepStrictEqual(rows.map((r) => r.id), ["direct"])
    }).pipe(Effect.provide(Reactivity.layer), Effect.scoped))

  it.live("with no transaction open it writes at once; inside the fiber's own transaction it is part of it", () =>
    Effect.gen(function*() {
      const { client: sql, direct } = yield* makeSqliteConnection({ filename: ":memory:" })
      yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY)`
      assert.strictEqual(yield* direct.transaction(insert("alone")), "alone")
      const inside = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
        yield* direct.transaction(insert("inside"))
        return yield* Effect.fail("rolled back")
      })))
      assert.isTrue(Exit.isFailure(inside))
      // a failed direct write rolls back its own statements only
      const failed = yield* Effect.either(direct.transaction((db) => {
        db.statement("INSERT INTO t (id) VALUES (?)").run("partial")
        return Either.left("refused")
      }))
      assert.deepStrictEqual(failed, Either.left("refused"))
      const rows = yield* sql<{ id: string }>`SELECT id FROM t ORDER BY id`
      assert.deepStrictEqual(rows.map((r) => r.id), ["alone"])
    }).pipe(Effect.provide(Reactivity.layer), Effect.scoped))
})
