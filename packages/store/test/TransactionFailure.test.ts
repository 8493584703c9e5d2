import * as Reactivity from "@effect/experimental/Reactivity"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { StoreError } from "../src/index.js"
import { isConnectionLoss } from "../src/internal/connectionLoss.js"
import { makeQueries } from "../src/internal/query.js"
import { makeSqliteConnection } from "../src/internal/sqliteConnection.js"

describe("store transactions", () => {
  it.scoped("a COMMIT that fails is the store's failure (a StoreError naming the operation), not a defect", () =>
    Effect.gen(function*() {
      const { client: sql } = yield* makeSqliteConnection({ filename: ":memory:" })
      yield* sql`PRAGMA foreign_keys = ON`
      yield* sql`CREATE TABLE parents (id TEXT PRIMARY KEY)`
      yield* sql`CREATE TABLE children (id TEXT PRIMARY KEY, parent TEXT REFERENCES parents (id))`
      const { transaction } = makeQueries(sql)
      // a deferred foreign key is checked at COMMIT: the statements succeed, the COMMIT fails (as it does when the
      // connection went away under the transaction, or the disk filled up)
      const exit = yield* Effect.exit(
        Effect.gen(function*() {
          yield* sql`PRAGMA defer_foreign_keys = ON`
          yield* sql`INSERT INTO children (id, parent) VALUES ('c', 'missing')`
        }).pipe(transaction("adopting a child"))
      )
      assert.isTrue(Exit.isFailure(exit) && !Exit.isInterrupted(exit))
      const error = yield* Effect.flip(exit)
      assert.instanceOf(error, StoreError)
      assert.include(error.message, "adopting a child failed")
      assert.include(error.message, "FOREIGN KEY")
      assert.isFalse(error instanceof StoreError && error.unreachable)
      const rows = yield* sql<{ n: number }>`SELECT count(*) AS n FROM children`
      assert.strictEqual(rows[0]?.n, 0, "rolled back")
    }).pipe(Effect.provide(Reactivity.layer)))

  it("tells a database that cannot be reached (or dropped the connection) from one that failed", () => {
    const system = (code: string, message = code) => Object.assign(new Error(message), { code })
    const wrapped = (cause: unknown) => ({ _tag: "SqlError", message: "Failed to execute statement", cause })
    // reached
    assert.isTrue(isConnectionLoss(wrapped(system("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"))))
    assert.isTrue(isConnectionLoss(wrapped(system("ECONNRESET"))))
    assert.isTrue(isConnectionLoss(wrapped(system("57P01", "terminating connection due to administrator command"))))
    assert.isTrue(isConnectionLoss(wrapped(system("57P03", "the database system is starting up"))))
    assert.isTrue(isConnectionLoss(wrapped(system("08006", "connection failure"))))
    assert.isTrue(isConnectionLoss(wrapped(new Error("Connection terminated unexpectedly"))))
    assert.isTrue(
      isConnectionLoss(wrapped(new Error("Client has encountered a connection error and is not queryable")))
    )
    // failed: trying again would fail the same way
    assert.isFalse(isConnectionLoss(wrapped(system("23505", "duplicate key value violates unique constraint"))))
    assert.isFalse(isConnectionLoss(wrapped(system("42P01", "relation \"runs\" does not exist"))))
    assert.isFalse(isConnectionLoss(wrapped(system("SQLITE_BUSY", "database is locked"))))
    assert.isFalse(isConnectionLoss(wrapped(system("SQLITE_FULL", "database or disk is full"))))
    assert.isFalse(isConnectionLoss(undefined))
  })
})
