import type { SqlClient, SqlError } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { StoreError } from "../Domain/Errors.js"

/** Turns database failures into `StoreError` naming the operation. */
export const storeFailure = (operation: string) => (cause: SqlError.SqlError) =>
  new StoreError({ message: `${operation} failed: ${cause.message}${causeMessage(cause.cause)}`, cause })

/** The message of an error's cause on one line (`AggregateError`s, e.g. every address refused, list theirs). */
export const causeMessage = (cause: unknown): string => {
  if (cause instanceof AggregateError && cause.message === "") {
    return ` (${cause.errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; ")})`
  }
  return typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
    ? ` (${cause.message.split("\n")[0]})`
    : ""
}

/** The current time (from the Clock, so tests control it). Stored as ISO-8601 text by `Schema.Date` columns. */
export const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The current time as an ISO-8601 string. */
export const nowIso = Effect.map(now, (date) => date.toISOString())

/** NULL → undefined. */
export const orUndefined = <A>(value: A | null): A | undefined => (value === null ? undefined : value)

/**
 * An integer column or aggregate: `count(*)`, `sum(…)` and `BIGINT` come back as strings from Postgres (64-bit) and as
 * numbers from SQLite.
 */
export const DbInt = Schema.Union(Schema.Int, Schema.NumberFromString.pipe(Schema.int()))

/** A floating-point aggregate (`sum` of a `REAL`/`DOUBLE PRECISION` column, or of integers on Postgres). */
export const DbNumber = Schema.Union(Schema.Number, Schema.NumberFromString)

/**
 * A flag column: `BOOLEAN` on Postgres, `INTEGER` 0/1 on SQLite. It is bound as 0/1, which Postgres accepts as boolean
 * input, so one statement serves both dialects.
 */
export const DbFlag = Schema.transform(Schema.Union(Schema.Boolean, Schema.Literal(0, 1)), Schema.Boolean, {
  strict: true,
  decode: (value) => value === true || value === 1,
  encode: (flag): 0 | 1 => (flag ? 1 : 0)
})

/** Epoch milliseconds in a `BIGINT` column, as a `Date`. */
export const DbMillis = Schema.transform(DbInt, Schema.DateFromSelf, {
  strict: true,
  decode: (ms) => new Date(ms),
  encode: (date) => date.getTime()
})

/** Rows per multi-row `INSERT`: well under SQLite's 32 766 and Postgres's 65 535 bound parameters. */
export const insertChunk = 200

/** Splits rows into chunks of at most `size`. */
export const chunks = <A>(rows: ReadonlyArray<A>, size: number = insertChunk): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size))
  return out
}

/**
 * `ORDER BY` text in byte order on both dialects: SQLite compares bytes, Postgres by the database's locale unless
 * told `COLLATE "C"`, so lists would come back in a different order.
 */
export const byteOrder = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({ pg: () => sql.literal(" COLLATE \"C\""), orElse: () => sql.literal("") })

/**
 * A text field inside a JSON column (`column` as written in the query, a constant of the code; `path` its keys), for a
 * filter: `json_extract` on SQLite, `#>>` on Postgres. The runs' dataset hash (`r.manifest`, `dataset.hash`) has an
 * index on this very expression followed by the listing order (migration 15, before it 13); any other field is read row
 * by row.
 */
export const jsonTextField = (sql: SqlClient.SqlClient, column: string, path: ReadonlyArray<string>) =>
  sql.onDialectOrElse({
    pg: () => sql.literal(`(CAST(${column} AS JSON) #>> '{${path.join(",")}}')`),
    orElse: () => sql.literal(`json_extract(${column}, '$.${path.join(".")}')`)
  })
