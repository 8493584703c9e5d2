import type * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "@effect/sql"
import Sqlite from "better-sqlite3"
import { Cache, Context, Duration, Effect, Scope, Stream } from "effect"
import { makeSqliteDirect, type SqliteDirectService } from "./sqliteDirect.js"

export interface SqliteConnectionOptions {
  readonly filename: string
  readonly readonly?: boolean | undefined
}

/** The client and its direct path, over one connection. */
export interface SqliteConnection {
  readonly client: SqlClient.SqlClient
  readonly direct: SqliteDirectService
}

/** A prepared statement whose rows are objects (better-sqlite3's default row shape). */
type ObjectStatement = Sqlite.Statement<Array<unknown>, object>

/**
 * Opens an SQLite file in WAL mode as `@effect/sql-sqlite-node`'s `SqliteClient.make` does (one connection, its
 * statements serialized by a semaphore, prepared statements cached), built with `SqlClient.make` so that the store's
 * fast path can share the connection and its semaphore (`SqliteClient` does not expose them).
 */
export const makeSqliteConnection = (
  options: SqliteConnectionOptions
): Effect.Effect<SqliteConnection, never, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.sync(() => new Sqlite(options.filename, { readonly: options.readonly ?? false })),
      (db) => Effect.sync(() => db.close())
    )
    db.pragma("journal_mode = WAL")
    const prepareCache = yield* Cache.make({
      capacity: 200,
      timeToLive: Duration.minutes(10),
      lookup: (sql: string) =>
        Effect.try({
          try: () => db.prepare<Array<unknown>, object>(sql),
          catch: (cause) => new SqlError.SqlError({ cause, message: "Failed to prepare statement " })
        })
    })
    /** Runs `f` on a statement, with the fiber's `SafeIntegers` setting; a throw is a `SqlError`. */
    const attempt = <A>(statement: ObjectStatement, f: () => A) =>
      Effect.withFiberRuntime<A, SqlError.SqlError>((fiber) => {
        if (Context.get(fiber.currentContext, SqlClient.SafeIntegers)) statement.safeIntegers(true)
        try {
          return Effect.succeed(f())
        } catch (cause) {
          return Effect.fail(new SqlError.SqlError({ cause, message: "Failed to execute statement" }))
        }
      })
    /** A reader's rows; a writer runs and answers no rows. */
    const rows = (statement: ObjectStatement, params: ReadonlyArray<unknown>) =>
      attempt(statement, (): ReadonlyArray<object> => {
        if (statement.reader) return statement.all(...params)
        statement.run(...params)
        return []
      })
    const prepared = (sql: string, params: ReadonlyArray<unknown>) =>
      Effect.flatMap(prepareCache.get(sql), (statement) => rows(statement, params))
    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        transformRows ? Effect.map(prepared(sql, params), transformRows) : prepared(sql, params),
      // a writer's `RunResult` (changes, last row id)
      executeRaw: (sql, params) =>
        Effect.flatMap(
          prepareCache.get(sql),
          (statement) =>
            attempt(statement, (): unknown => statement.reader ? statement.all(...params) : statement.run(...params))
        ),
      executeValues: (sql, params) =>
        Effect.acquireUseRelease(
          prepareCache.get(sql),
          (statement) =>
            Effect.try({
              try: () => {
                if (statement.reader) return statement.raw(true).all(...params).filter(Array.isArray)
                statement.run(...params)
                return []
              },
              catch: (cause) => new SqlError.SqlError({ cause, message: "Failed to execute statement" })
            }),
          (statement) => Effect.sync(() => statement.reader && statement.raw(false))
        ),
      executeUnprepared: (sql, params, transformRows) => {
        const effect = Effect.flatMap(
          Effect.try({
            try: () => db.prepare<Array<unknown>, object>(sql),
            catch: (cause) => new SqlError.SqlError({ cause, message: "Failed to prepare statement " })
          }),
          (statement) => rows(statement, params ?? [])
        )
        return transformRows ? Effect.map(effect, transformRows) : effect
      },
      executeStream: () => Stream.dieMessage("executeStream not implemented")
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    // A transaction whose COMMIT failed is still open (SQLite keeps it, e.g. at a deferred constraint; after some I/O
    // errors it may or may not have rolled back): it is rolled back before the connection is given to anyone else,
    // whose statements would otherwise run inside it — and never commit
    const endAbandonedTransaction = Effect.try(() => {
      if (db.inTransaction) db.exec("ROLLBACK")
    }).pipe(Effect.ignore)
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(
            Effect.scope,
            (scope) => Scope.addFinalizer(scope, Effect.zipRight(endAbandonedTransaction, semaphore.release(1)))
          )
        ),
        connection
      )
    )
    const client = yield* SqlClient.make({
      acquirer,
      compiler: Statement.makeCompilerSqlite(),
      transactionAcquirer,
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    const direct = makeSqliteDirect(db, semaphore, connection)
    return { client, direct }
  })
