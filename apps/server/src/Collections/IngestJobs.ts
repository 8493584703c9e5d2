import { IngestJob, NotFound, type Tenant } from "@deepnote/api"
import type { CorpusDocument } from "@deepnote/retrieval"
import { Clock, Context, Effect, FiberSet, Layer, Ref } from "effect"
import { randomBytes } from "node:crypto"
import { TenantCollections } from "./TenantCollections.js"

const batchSize = 2000
const keptJobs = 1000

interface JobEntry {
  readonly tenantId: string
  readonly job: IngestJob
}

/**
 * Document uploads indexed in the background, one job per upload (batches of 2000, each one transaction). Job
 * status lives in memory: after a restart a job id is unknown (committed batches stay in the collection).
 */
export class IngestJobs extends Context.Tag("@deepnote/server/IngestJobs")<IngestJobs, {
  readonly submit: (tenant: Tenant, collection: string, documents: ReadonlyArray<CorpusDocument>) => Effect.Effect<IngestJob>
  readonly get: (tenant: Tenant, collection: string, jobId: string) => Effect.Effect<IngestJob, NotFound>
}>() {
  static readonly layer = Layer.scoped(
    IngestJobs,
    Effect.gen(function*() {
      const collections = yield* TenantCollections
      const fibers = yield* FiberSet.make()
      const jobs = yield* Ref.make(new Map<string, JobEntry>())
      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
      const update = (id: string, f: (job: IngestJob) => IngestJob) =>
        Ref.update(jobs, (map) => {
          const entry = map.get(id)
          if (entry !== undefined) map.set(id, { ...entry, job: f(entry.job) })
          return map
        })

      const run = (tenant: Tenant, id: string, collection: string, documents: ReadonlyArray<CorpusDocument>) =>
        Effect.gen(function*() {
          yield* update(id, (job) => new IngestJob({ ...job, status: "running" }))
          for (let start = 0; start < documents.length; start += batchSize) {
            const { added, skipped } = yield* collections.add(tenant, collection, documents.slice(start, start + batchSize))
            yield* update(id, (job) => new IngestJob({ ...job, added: job.added + added, skipped: job.skipped + skipped }))
          }
          const finishedAt = yield* now
          yield* update(id, (job) => new IngestJob({ ...job, status: "done", finishedAt }))
        }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.flatMap(now, (finishedAt) =>
              update(id, (job) => new IngestJob({ ...job, status: "failed", finishedAt, message: cause.toString().split("\n")[0] ?? "failed" })))
          ),
          Effect.withSpan("IngestJobs.run", { attributes: { "deepnote.collection": collection, "deepnote.job.id": id } })
        )

      return {
        submit: Effect.fn("IngestJobs.submit")(function*(tenant: Tenant, collection: string, documents: ReadonlyArray<CorpusDocument>) {
          const id = `j-${randomBytes(6).toString("hex")}`
          const job = new IngestJob({ id, collection, status: "queued", received: documents.length, added: 0, skipped: 0, createdAt: yield* now })
          yield* Ref.update(jobs, (map) => {
            map.set(id, { tenantId: tenant.id, job })
            if (map.size > keptJobs) {
              const oldest = map.keys().next().value
              if (oldest !== undefined) map.delete(oldest)
            }
            return map
          })
          yield* FiberSet.run(fibers, run(tenant, id, collection, documents))
          return job
        }),
        get: Effect.fn("IngestJobs.get")(function*(tenant: Tenant, collection: string, jobId: string) {
          const entry = (yield* Ref.get(jobs)).get(jobId)
          if (entry === undefined || entry.tenantId !== tenant.id || entry.job.collection !== collection) {
            return yield* NotFound.of(`job ${jobId} not found`)
          }
          return entry.job
        })
      }
    })
  )
}
