import type { SqlError } from "@effect/sql"
import { Clock, Effect, ParseResult, Predicate, Schema } from "effect"
import { StoreError } from "../Domain/Errors.js"

/** Turns SQLite failures into `StoreError` naming the operation. */
export const storeFailure = (operation: string) => (cause: SqlError.SqlError) =>
  new StoreError({ message: `${operation} failed: ${cause.message}${causeMessage(cause.cause)}`, cause })

/** Maps only the `SqlError`s of an effect to `StoreError`, keeping its other errors. */
export const sqlFailure = (operation: string) =>
<A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, Extract<E, SqlError.SqlError>> | StoreError, R> =>
  Effect.catchIf(
    self,
    (e): e is Extract<E, SqlError.SqlError> => Predicate.isTagged(e, "SqlError"),
    (e) => Effect.fail(storeFailure(operation)(e))
  )

const causeMessage = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
    ? ` (${cause.message})`
    : ""

/** The current time as an ISO-8601 string (from the Clock, so tests control it). */
export const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Encodes a value to its JSON text through a schema; encoding our own values only fails on a bug. */
export const toJson = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encode(Schema.parseJson(schema))
  return (value: A): Effect.Effect<string> => Effect.orDie(encode(value))
}

/** Decodes a stored JSON column; a failure means the file was edited or corrupted. */
export const fromJson = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = Schema.decodeUnknown(Schema.parseJson(schema))
  return (text: unknown): Effect.Effect<A, StoreError> =>
    decode(text).pipe(
      Effect.mapError((error) =>
        new StoreError({
          message: `stored ${what} does not decode: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
        })
      )
    )
}

/** An optional column: NULL → undefined. */
export const optionalDate = (value: string | null): Date | undefined => (value === null ? undefined : new Date(value))

/** Decodes a row read from the database. */
export const decodeRowWith = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = Schema.decodeUnknown(schema)
  return (row: unknown): Effect.Effect<A, StoreError> =>
    decode(row).pipe(
      Effect.mapError((error) =>
        new StoreError({
          message: `stored ${what} does not decode: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
        })
      )
    )
}
