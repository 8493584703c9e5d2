import { IngestJob, NotFound, type Tenant } from "@deepnote/api"
import type { CorpusDocument } from "@deepnote/retrieval"
import { IngestJobLog, type IngestJobRecord } from "@deepnote/store"
import { Clock, Context, Effect, FiberSet, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { TenantCollections } from "./TenantCollections.js"

const batchSize = 2000
/** Upload jobs whose status is kept (the newest; older ones are deleted when the server starts). */
const keptJobs = 10_000

const toJob = (r: IngestJobRecord) =>
  new IngestJob({
    id: r.id,
    collection: r.collection,
    status: r.status,
    received: r.received,
    added: r.added,
    skipped: r.skipped,
    createdAt: r.createdAt,
    ...(r.finishedAt === undefined ? {} : { finishedAt: r.finishedAt }),
    ...(r.message === undefined ? {} : { message: r.message })
  })

/**
 * Document uploads indexed in the background, one job per upload (batches of 2000, each one transaction). Job status
 * is kept in the store, so it outlives a restart: jobs a stopped server left unfinished read as `interrupted`
 * (their committed batches stay in the collection; uploading again skips the documents already added).
 */
export class IngestJobs extends Context.Tag("@deepnote/server/IngestJobs")<IngestJobs, {
  readonly submit: (
    tenant: Tenant,
    collection: string,
    documents: ReadonlyArray<CorpusDocument>
  ) => Effect.Effect<IngestJob>
  readonly get: (tenant: Tenant, collection: string, jobId: string) => Effect.Effect<IngestJob, NotFound>
}>() {
  static readonly layer = Layer.scoped(
    IngestJobs,
    Effect.gen(function*() {
      const collections = yield* TenantCollections
      const log = yield* IngestJobLog
      const fibers = yield* FiberSet.make()
      yield* Effect.orDie(log.prune(keptJobs))
      const interrupted = yield* Effect.orDie(log.interruptUnfinished)
      if (interrupted > 0) {
        yield* Effect.logWarning(`${interrupted} document upload(s) were cut off by the last stop; marked interrupted`)
      }
      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

      const run = (tenant: Tenant, id: string, collection: string, documents: ReadonlyArray<CorpusDocument>) =>
        Effect.gen(function*() {
          yield* log.update(id, { status: "running" })
          let added = 0
          let skipped = 0
          for (let start = 0; start < documents.length; start += batchSize) {
            const batch = yield* collections.add(tenant, collection, documents.slice(start, start + batchSize))
            added += batch.added
            skipped += batch.skipped
            yield* log.update(id, { added, skipped })
          }
          yield* log.update(id, { status: "done", finishedAt: yield* now })
        }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.flatMap(
              now,
              (finishedAt) =>
                log.update(id, { status: "failed", finishedAt, message: cause.toString().split("\n")[0] ?? "failed" })
            )
          ),
          Effect.orDie,
          Effect.withSpan("IngestJobs.run", {
            attributes: { "deepnote.collection": collection, "deepnote.job.id": id }
          })
        )

      return {
        submit: Effect.fn("IngestJobs.submit")(
          function*(tenant: Tenant, collection: string, documents: ReadonlyArray<CorpusDocument>) {
            const record: IngestJobRecord = {
              id: `j-${randomBytes(6).toString("hex")}`,
              tenantId: tenant.id,
              collection,
              status: "queued",
              received: documents.length,
              added: 0,
              skipped: 0,
              message: undefined,
              createdAt: yield* now,
              finishedAt: undefined
            }
            yield* Effect.orDie(log.create(record))
            yield* FiberSet.run(fibers, run(tenant, record.id, collection, documents))
            return toJob(record)
          }
        ),
        get: Effect.fn("IngestJobs.get")(function*(tenant: Tenant, collection: string, jobId: string) {
          const found = yield* Effect.orDie(log.get(jobId))
          if (Option.isNone(found) || found.value.tenantId !== tenant.id || found.value.collection !== collection) {
            return yield* NotFound.of(`job ${jobId} not found`)
          }
          return toJob(found.value)
        })
      }
    })
  )
}
