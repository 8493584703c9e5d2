import { SqlClient, type SqlConnection, SqlError } from "@effect/sql"
import type Sqlite from "better-sqlite3"
import { Context, Deferred, Effect, Either, Exit, Option, Queue, type Scope } from "effect"

/**
 * Synchronous work on the store's own SQLite connection, each piece all or nothing: the measured fast path of the run's
 * hottest write (`EventLog.append`, a call's journal entry with the event that follows it, ≈ 1.35 appends per LLM
 * call). Through `@effect/sql` that append was ≈ 450 steps of the Effect run loop (each statement an effect with its
 * own prepared-statement cache look-up, span and error mapping; BEGIN and COMMIT statements of their own) and its own
 * transaction: ≈ 1.4 ms of CPU per LLM call, the largest share of the run (`benchmarks/cpu`, "Where the Effect
 * runtime's share goes"). Here the same statements run synchronously on prepared statements kept for the connection's
 * life, and the pieces of work waiting at the same time commit together (group commit): one writer takes every piece
 * queued, runs each in a savepoint of one transaction (a piece that fails rolls back alone) and answers each once the
 * transaction has committed — so an append is still acknowledged only once it is durable, and a commit's WAL pages
 * (the runs row, the event and journal B-tree leaves) are written once for many appends instead of once each.
 * SQLite only: a Postgres store has no `SqliteDirect` in context and its writers take the `@effect/sql` path.
 *
 * No span of its own: it runs inside the caller's (`EventLog.append`), once per append.
 */
export interface SqliteDirectService {
  /**
   * Runs `work` all or nothing, committed before this answers (inside an `@effect/sql` transaction of this client, in
   * a savepoint of it, at once). `Left` rolls the work back and fails with its error; a database error rolls it back
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

/** A piece of work waiting for the writer: run it (inside the batch's transaction), fail it, answer its caller. */
interface Pending {
  readonly run: () => void
  readonly fail: (error: SqlError.SqlError) => void
  readonly answer: Effect.Effect<void>
}

/** Most pieces committed together: bounds how long one transaction holds the connection (and the event loop). */
const batchLimit = 256

/** Thrown inside a better-sqlite3 transaction to roll it back (the typed failure is kept beside it). */
const rollback = Symbol("rollback")

/** Resumes after the I/O callbacks due now have run (`setImmediate`). */
const afterPendingIo = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const sqlError = (cause: unknown) => new SqlError.SqlError({ cause, message: "Failed to execute statement" })

/**
 * The direct path over `db`, sharing the client's semaphore (a transaction holds the connection as a statement does)
 * and recognising the client's own open transactions by `connection`. The writer lives as long as the scope.
 */
export const makeSqliteDirect = (
  db: Sqlite.Database,
  semaphore: Effect.Semaphore,
  connection: SqlConnection.Connection
): Effect.Effect<SqliteDirectService, never, Scope.Scope> =>
  Effect.gen(function*() {
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

    /** One transaction for the batch, each piece in its own savepoint; a failed BEGIN or COMMIT fails them all. */
    const commit = (batch: ReadonlyArray<Pending>): void => {
      try {
        db.transaction(() => {
          for (const pending of batch) pending.run()
        }).immediate()
      } catch (cause) {
        for (const pending of batch) pending.fail(sqlError(cause))
      }
    }

    const queue = yield* Queue.unbounded<Pending>()
    // when the store closes: the writer stops first (a batch it took is committed and answered), then whatever is
    // still queued is answered with a failure (never run), so no caller waits for good
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.takeAll(queue), (rest) => Effect.forEach(rest, (pending) => pending.answer))
    )
    // once an append is taken it is committed and answered whatever happens (interruption is only possible while the
    // writer waits for the first): a taken append dropped by an interruption would leave its caller waiting for good
    yield* Effect.forkScoped(Effect.forever(Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const first = yield* restore(Queue.take(queue))
        // let the I/O callbacks already due run first (other questions' replies, whose appends join this batch)
        yield* afterPendingIo
        const rest = yield* Queue.takeUpTo(queue, batchLimit - 1)
        const batch = [first, ...rest]
        yield* semaphore.withPermits(1)(Effect.sync(() => commit(batch)))
        yield* Effect.forEach(batch, (pending) => pending.answer)
      })
    )))

    const transaction = <A, E>(work: (db: SqliteDirectDatabase) => Either.Either<A, E>) =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (open) => {
        // inside this client's transaction the fiber holds the connection already: run in a savepoint of it, now
        if (Option.isSome(open) && open.value[0] === connection) return Effect.suspend(attempt(work))
        return Effect.flatMap(Deferred.make<A, E | SqlError.SqlError>(), (done) => {
          let exit: Exit.Exit<A, E | SqlError.SqlError> | undefined
          const run = attempt(work)
          const pending: Pending = {
            run: () => void (exit = run()),
            fail: (error) => void (exit = Exit.fail(error)),
            answer: Effect.suspend(() =>
              Deferred.done(done, exit ?? Exit.fail(sqlError("the store closed before the write ran")))
            )
          }
          return Effect.zipRight(Queue.offer(queue, pending), Deferred.await(done))
        })
      })
    return { transaction }
  })
