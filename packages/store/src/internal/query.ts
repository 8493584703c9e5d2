import { firstDecodeIssue } from "@deepnote-rag/core"
import { type SqlClient, SqlError, SqlSchema } from "@effect/sql"
import { Effect, Option, type ParseResult, Predicate, type Schema } from "effect"
import { StoreError } from "../Domain/Errors.js"
import { diagnosisOf } from "./diagnosis.js"
import { storeFailure } from "./sql.js"

interface QueryOptions<IA, II, IR, A, AI, AR, R> {
  /** The table the rows come from, for messages. */
  readonly table: string
  /** What the query does, for messages: "reading a run". */
  readonly action: string
  readonly Request: Schema.Schema<IA, II, IR>
  readonly Result: Schema.Schema<A, AI, AR>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError, R>
}

const toStoreError =
  (table: string, action: string) => (error: SqlError.SqlError | ParseResult.ParseError): StoreError =>
    error._tag === "ParseError"
      ? new StoreError({
        message: `a stored ${table} row does not decode (${action}): ${firstDecodeIssue(error, "row")}`
      })
      : storeFailure(action)(error)

/**
 * Typed queries over one client: `@effect/sql`'s `SqlSchema` with a `Request` and a `Result` schema, whose failures
 * are `StoreError`s naming the table and the operation (a database failure, or a stored row that no longer decodes),
 * explained by the store's diagnosis (a corrupted SQLite file is named as such).
 */
export const makeQueries = (sql: SqlClient.SqlClient) => {
  const diagnose = diagnosisOf(sql)
  const fail = (table: string, action: string) => (error: SqlError.SqlError | ParseResult.ParseError) =>
    Effect.flip(diagnose(toStoreError(table, action)(error)))

  /** Every row of the result. */
  const findAll = <IA, II, IR, A, AI, AR, R>(options: QueryOptions<IA, II, IR, A, AI, AR, R>) => {
    const query = SqlSchema.findAll(options)
    const failure = fail(options.table, options.action)
    return (request: IA): Effect.Effect<ReadonlyArray<A>, StoreError, R | IR | AR> =>
      Effect.catchAll(query(request), failure)
  }

  /** The first row of the result, if any. */
  const findOne = <IA, II, IR, A, AI, AR, R>(options: QueryOptions<IA, II, IR, A, AI, AR, R>) => {
    const query = SqlSchema.findOne(options)
    const failure = fail(options.table, options.action)
    return (request: IA): Effect.Effect<Option.Option<A>, StoreError, R | IR | AR> =>
      Effect.catchAll(query(request), failure)
  }

  /** A statement whose result is not read. */
  const execute = <IA, II, IR, R>(options: {
    readonly table: string
    readonly action: string
    readonly Request: Schema.Schema<IA, II, IR>
    readonly execute: (request: II) => Effect.Effect<unknown, SqlError.SqlError, R>
  }) => {
    const query = SqlSchema.void(options)
    const failure = fail(options.table, options.action)
    return (request: IA): Effect.Effect<void, StoreError, R | IR> => Effect.catchAll(query(request), failure)
  }

  /** A database failure as a `StoreError` naming the operation (and a corrupted SQLite file as such). */
  const sqlFailure = (action: string) => (error: SqlError.SqlError): Effect.Effect<never, StoreError> =>
    Effect.flip(diagnose(storeFailure(action)(error)))

  /**
   * Runs an effect in one transaction; a failure to begin, commit or roll back is a `StoreError` naming the operation.
   * (@effect/sql makes a failed COMMIT or ROLLBACK a defect — the connection went away under the transaction, or the
   * disk filled up — which would escape every caller's error handling: it is the store's failure here.)
   */
  const transaction =
    (action: string) =>
    <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | StoreError, R> =>
      Effect.catchIf(
        sql.withTransaction(self).pipe(
          Effect.catchSomeDefect((defect) =>
            defect instanceof SqlError.SqlError ? Option.some(Effect.fail(defect)) : Option.none()
          )
        ),
        (e): e is SqlError.SqlError => Predicate.isTagged(e, "SqlError"),
        sqlFailure(action)
      )

  return { sql, findAll, findOne, execute, sqlFailure, transaction }
}
