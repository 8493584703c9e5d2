import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { fromJson, nowIso, sqlFailure, toJson } from "./internal/sql.js"

/**
 * Content-addressed caches shared by the runs of a sweep (e.g. `retrieval`): `(namespace, key) → JSON value`.
 * Keys should be hashes of everything that determines the value (`stableHash`). First write wins.
 */
export interface SharedCacheService {
  readonly get: <A, I>(
    namespace: string,
    key: string,
    schema: Schema.Schema<A, I>
  ) => Effect.Effect<Option.Option<A>, StoreError>
  readonly set: <A, I>(
    namespace: string,
    key: string,
    schema: Schema.Schema<A, I>,
    value: A
  ) => Effect.Effect<void, StoreError>
  /** The cached value, else `compute` stored under the key. */
  readonly getOrCompute: <A, I, E, R>(
    namespace: string,
    key: string,
    schema: Schema.Schema<A, I>,
    compute: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError, R>
  /** Deletes a namespace (or everything); returns the number of entries removed. */
  readonly clear: (namespace?: string) => Effect.Effect<number, StoreError>
}

export class SharedCache extends Context.Tag("@deepnote/store/SharedCache")<SharedCache, SharedCacheService>() {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const get = <A, I>(namespace: string, key: string, schema: Schema.Schema<A, I>) =>
      sql<{ value: string }>`SELECT value FROM caches WHERE namespace = ${namespace} AND key = ${key}`.pipe(
        sqlFailure("reading the cache"),
        Effect.flatMap((rows) =>
          rows[0] === undefined
            ? Effect.succeedNone
            : Effect.asSome(fromJson(schema, `cache entry ${namespace}/${key}`)(rows[0].value))
        ),
        Effect.withSpan("SharedCache.get", { attributes: { "deepnote.cache.namespace": namespace } })
      )
    const set = <A, I>(namespace: string, key: string, schema: Schema.Schema<A, I>, value: A) =>
      Effect.gen(function*() {
        const json = yield* toJson(schema)(value)
        const createdAt = yield* nowIso
        yield* sql`INSERT INTO caches ${sql.insert({ namespace, key, value: json, created_at: createdAt })}
          ON CONFLICT (namespace, key) DO NOTHING`.pipe(sqlFailure("writing the cache"))
      }).pipe(Effect.withSpan("SharedCache.set", { attributes: { "deepnote.cache.namespace": namespace } }))
    const getOrCompute = <A, I, E, R>(
      namespace: string,
      key: string,
      schema: Schema.Schema<A, I>,
      compute: Effect.Effect<A, E, R>
    ) =>
      get(namespace, key, schema).pipe(
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () => Effect.tap(compute, (value) => set(namespace, key, schema, value))
        })),
        Effect.withSpan("SharedCache.getOrCompute", { attributes: { "deepnote.cache.namespace": namespace } })
      )
    const clear = Effect.fn("SharedCache.clear")(function*(namespace?: string) {
      const rows = yield* (namespace === undefined
        ? sql`DELETE FROM caches RETURNING key`
        : sql`DELETE FROM caches WHERE namespace = ${namespace} RETURNING key`).pipe(sqlFailure("clearing the cache"))
      return rows.length
    })
    return SharedCache.of({ get, set, getOrCompute, clear })
  })

  static readonly layer: Layer.Layer<SharedCache, never, SqlClient.SqlClient> = Layer.effect(
    SharedCache,
    SharedCache.make
  )
}
