import { Api, CurrentTenant } from "@deepnote-rag/api"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { receiveDocuments } from "../../Collections/DocumentBody.js"
import { IngestJobs } from "../../Collections/IngestJobs.js"
import { TenantCollections } from "../../Collections/TenantCollections.js"

export const CollectionsHandlers = HttpApiBuilder.group(Api, "collections", (handlers) =>
  Effect.gen(function*() {
    const collections = yield* TenantCollections
    const jobs = yield* IngestJobs
    return handlers
      .handle("list", () =>
        Effect.flatMap(CurrentTenant, collections.list).pipe(Effect.map((list) => ({ collections: list }))))
      .handle("create", ({ payload }) =>
        Effect.flatMap(CurrentTenant, (tenant) =>
          collections.create(tenant, payload.name, payload.stemming ?? "porter")))
      .handle("get", ({ path }) =>
        Effect.flatMap(CurrentTenant, (tenant) =>
          collections.get(tenant, path.name)))
      .handle("drop", ({ path }) =>
        Effect.flatMap(CurrentTenant, (tenant) =>
          collections.drop(tenant, path.name)))
      .handleRaw("addDocuments", ({ path, request }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          yield* collections.require(tenant, path.name)
          const upload = yield* receiveDocuments(tenant, request)
          return yield* jobs.submit(tenant, path.name, upload)
        }))
      .handle("job", ({ path }) => Effect.flatMap(CurrentTenant, (tenant) => jobs.get(tenant, path.name, path.jobId)))
      .handle("search", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          const hits = yield* collections.search(tenant, path.name, urlParams.q, urlParams.k ?? 10)
          return { collection: path.name, query: urlParams.q, hits }
        }))
  }))
