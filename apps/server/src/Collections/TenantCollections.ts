import { CollectionSummary, Conflict, InternalError, NotFound, type Tenant, ValidationError } from "@deepnote-rag/api"
import { type RunConfig } from "@deepnote-rag/core"
import { embeddingFacts } from "@deepnote-rag/engine"
import { Collections, type IndexError } from "@deepnote-rag/retrieval"
import { Context, Effect, Layer } from "effect"

/** A collection's file name for a tenant: `<tenant>__<name>` (no prefix for the local tenant of `--no-auth`). */
export const storedName = (tenant: Tenant, name: string) => `${tenant.namespace}${name}`

const notFound = (name: string) => NotFound.of(`collection "${name}" not found`)
const indexFailure = (e: IndexError) => InternalError.of(e.message, "index_error")

/**
 * The tenant's view of the embedded collections: every name is namespaced, so one tenant can neither list nor open
 * another's (another tenant's name is simply "not found").
 */
export class TenantCollections extends Context.Tag("@deepnote-rag/server/TenantCollections")<TenantCollections, {
  readonly list: (tenant: Tenant) => Effect.Effect<ReadonlyArray<CollectionSummary>, InternalError>
  readonly create: (
    tenant: Tenant,
    name: string,
    stemming: "porter" | "none"
  ) => Effect.Effect<CollectionSummary, Conflict | InternalError>
  readonly get: (tenant: Tenant, name: string) => Effect.Effect<CollectionSummary, NotFound | InternalError>
  readonly drop: (tenant: Tenant, name: string) => Effect.Effect<void, NotFound | InternalError>
  readonly search: (
    tenant: Tenant,
    name: string,
    query: string,
    k: number
  ) => Effect.Effect<
    ReadonlyArray<{ id: string; title: string; text: string; score: number }>,
    NotFound | InternalError
  >
  /** The stored name of an existing collection, or 404. */
  readonly require: (tenant: Tenant, name: string) => Effect.Effect<string, NotFound>
  /**
   * Dense and hybrid: the stored collection's embeddings model and vector length (what a run's manifest records), or
   * 400 on `config.retriever` when it has no vectors; undefined for BM25.
   */
  readonly embeddings: (
    config: RunConfig,
    name: string,
    stored: string
  ) => Effect.Effect<
    { readonly model: string; readonly dimensions: number } | undefined,
    ValidationError | InternalError
  >
}>() {
  static readonly layer = Layer.effect(
    TenantCollections,
    Effect.gen(function*() {
      const collections = yield* Collections
      const visible = (tenant: Tenant, stored: string) =>
        stored.startsWith(tenant.namespace) ? stored.slice(tenant.namespace.length) : undefined
      const summary = (tenant: Tenant, name: string) =>
        collections.info(storedName(tenant, name)).pipe(
          Effect.map((info) =>
            new CollectionSummary({
              name,
              documents: info.documents,
              sizeBytes: info.sizeBytes,
              stemming: info.settings.stemming
            })
          ),
          Effect.catchTags({
            CollectionNotFound: () => notFound(name),
            InvalidCollectionName: () => notFound(name),
            IndexError: indexFailure
          })
        )
      const exists = (tenant: Tenant, name: string) =>
        Effect.map(collections.list, (names) => names.includes(storedName(tenant, name)))
      return {
        list: Effect.fn("TenantCollections.list")(function*(tenant: Tenant) {
          const names = (yield* collections.list).flatMap((stored) => {
            const name = visible(tenant, stored)
            return name === undefined ? [] : [name]
          })
          return yield* Effect.forEach(
            names,
            (name) => summary(tenant, name).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
          ).pipe(
            Effect.map((all) => all.filter((s) => s !== undefined))
          )
        }),
        create: Effect.fn("TenantCollections.create")(
          function*(tenant: Tenant, name: string, stemming: "porter" | "none") {
            if (yield* exists(tenant, name)) return yield* Conflict.of(`collection "${name}" already exists`)
            yield* collections.add(storedName(tenant, name), [], { settings: { stemming } }).pipe(
              Effect.catchTags({ IndexError: indexFailure, InvalidCollectionName: (e) => InternalError.of(e.message) })
            )
            return yield* summary(tenant, name).pipe(
              Effect.catchTag("NotFound", () => InternalError.of(`collection "${name}" vanished`))
            )
          }
        ),
        get: (tenant, name) => summary(tenant, name).pipe(Effect.withSpan("TenantCollections.get")),
        drop: Effect.fn("TenantCollections.drop")(function*(tenant: Tenant, name: string) {
          if (!(yield* exists(tenant, name))) return yield* notFound(name)
          yield* collections.drop(storedName(tenant, name)).pipe(
            Effect.catchTags({ IndexError: indexFailure, InvalidCollectionName: () => notFound(name) })
          )
        }),
        search: Effect.fn("TenantCollections.search")(
          function*(tenant: Tenant, name: string, query: string, k: number) {
            if (!(yield* exists(tenant, name))) return yield* notFound(name)
            return yield* collections.search(storedName(tenant, name), query, { limit: k }).pipe(
              Effect.catchTags({
                CollectionNotFound: () => notFound(name),
                InvalidCollectionName: () => notFound(name),
                IndexError: indexFailure
              })
            )
          }
        ),
        require: Effect.fn("TenantCollections.require")(function*(tenant: Tenant, name: string) {
          if (!(yield* exists(tenant, name))) return yield* notFound(name)
          return storedName(tenant, name)
        }),
        embeddings: (config: RunConfig, name: string, stored: string) =>
          embeddingFacts(config, stored).pipe(
            Effect.provideService(Collections, collections),
            Effect.catchTags({
              NoVectors: () =>
                ValidationError.of(
                  `config.retriever: collection "${name}" has no vectors: embed it with \`deepnote embed\``,
                  "config.retriever"
                ),
              CollectionNotFound: (e) => InternalError.of(e.message, "index_error"),
              InvalidCollectionName: (e) => InternalError.of(e.message, "index_error"),
              IndexError: indexFailure
            })
          )
      }
    })
  )
}
