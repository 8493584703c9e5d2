import { SqlClient, type SqlConnection, SqlError } from "@effect/sql"
import type Sqlite from "better-sqlite3"
import { Context, Effect, Either, Exit, Option } from "effect"

/**
 * Synchronous work on the store's own SQLite connection, all or nothing: the measured fast path of the run's hottest
 * write (`EventLog.append`, a call's journal entry with the event that follows it, ≈ 1.35 appends per LLM call).
 * Through `@effect/sql` that append was ≈ 450 steps of the Effect run loop (each statement an effect with its own
 * prepared-statement cache look-up, span and error mapping; BEGIN and COMMIT statements of their own): ≈ 1.4 ms of CPU
 * per LLM call, the largest share of the run (`benchmarks/cpu`, "Where the Effect runtime's share goes"). Here the same
 * statements run synchronously in one transaction on prepared statements kept for the connection's life, on the
 * caller's fiber. (Committing the appends waiting at the same time together, through one writer fiber, cut the
 * transactions 15-fold but put a queue and a second fiber between an append and its caller, and its CPU gain was within
 * the benchmark's spread: see benchmarks/cpu.)
 * SQLite only: a Postgres store has no `SqliteDirect` in context and its writers take the `@effect/sql` path.
 *
 * No span of its own: it runs inside the caller's (`EventLog.append`), once per append.
 */
export interface SqliteDirectService {
  /**
   * Runs `work` all or nothing, committed before this answers (inside an `@effect/sql` transaction of this client, in
   * a savepoint of it). `Left` rolls the work back and fails with its error; a database error rolls it back
   * and fails with a `SqlError`.
   */
  readonly transaction: <A, E>(
    work: (db: SqliteDirectDatabase) => Either.Either<A, E>
  ) => Effect.Effect<A, E | SqlError.SqlError>
}

/** What `work` may do: run prepared statements (each prepared once per connection). */
export interface SqliteDirectDatabase {
  readonly statement: (sql: string) => Sqlite.Statement
}

export class SqliteDirect
  extends Context.Tag("@deepnote-rag/store/SqliteDirect")<SqliteDirect, SqliteDirectService>()
{}

/** Thrown inside a better-sqlite3 transaction to roll it back (the typed failure is kept beside it). */
const rollback = Symbol("rollback")

const sqlError = (cause: unknown) => new SqlError.SqlError({ cause, message: "Failed to execute statement" })

/**
 * The direct path over `db`, sharing the client's semaphore (a transaction holds the connection as a statement does)
 * and recognising the client's own open transactions by `connection`.
 */
export const makeSqliteDirect = (
  db: Sqlite.Database,
  semaphore: Effect.Semaphore,
  connection: SqlConnection.Connection
): SqliteDirectService => {
  const statements = new Map<string, Sqlite.Statement>()
  const database: SqliteDirectDatabase = {
    statement: (sql) => {
      let statement = statements.get(sql)
      if (statement === undefined) {
        statement = db.prepare(sql)
        statements.set(sql, statement)
      }
      return statement
    }
  }

  /** `work` in a transaction of its own (a savepoint inside an open one); its outcome as an `Exit`. */
  const attempt = <A, E>(work: (db: SqliteDirectDatabase) => Either.Either<A, E>) =>
  (): Exit.Exit<
    A,
    E | SqlError.SqlError
  > => {
    let failed: Option.Option<E> = Option.none()
    try {
      return Exit.succeed(
        db.transaction(() => {
          const result = work(database)
          if (Either.isLeft(result)) {
            failed = Option.some(result.left)
            throw rollback
          }
          return result.right
        }).immediate()
      )
    } catch (cause) {
      return Option.isSome(failed) ? Exit.fail(failed.value) : Exit.fail(sqlError(cause))
    }
  }

  const transaction = <A, E>(work: (db: SqliteDirectDatabase) => Either.Either<A, E>) =>
    Effect.suspend(() =>
      // No transaction open on the connection: the work runs whole, synchronously, before any other fiber can use the
      // connection, so there is nothing to wait for. (The client's statements outside a transaction hold the permit
      // only to pass it; a transaction holds it from before its BEGIN to after its COMMIT, and the work cannot run in
      // between them.) Taking the permit cost ≈ 10 run-loop steps per append (benchmarks/cpu).
      db.inTransaction
        ? Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) =>
          // inside this client's transaction the fiber holds the connection already: run in a savepoint of it, now
          Option.isSome(open) && open.value[0] === connection
            ? Effect.suspend(attempt(work))
            // another fiber's transaction is open: wait for the permit. It is taken and given back with nothing in
            // between that can be interrupted: the work is synchronous, so holding it uninterruptibly costs nothing
            : Effect.uninterruptible(semaphore.withPermits(1)(Effect.suspend(attempt(work)))))
        : attempt(work)()
    )
  return { transaction }
}
