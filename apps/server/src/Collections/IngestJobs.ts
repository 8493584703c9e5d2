import { IngestJob, NotFound, type Tenant } from "@deepnote-rag/api"
import { counted, hasEndedHere, Home } from "@deepnote-rag/core"
import { processOwner } from "@deepnote-rag/runs"
import { IngestJobLog, type IngestJobRecord } from "@deepnote-rag/store"
import { FileSystem } from "@effect/platform"
import { Cause, Clock, Context, Effect, FiberSet, Layer, Option, type Scope, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { receiptFile } from "../Uploads/UploadReceipt.js"
import { sweepUploads } from "../Uploads/UploadSweep.js"
import type { StoredDocuments } from "./DocumentBody.js"
import { IngestUpload } from "./IngestProtocol.js"
import { IngestWorkerPool } from "./IngestWorkerPool.js"
import { storedName } from "./TenantCollections.js"

/** Documents per transaction (as `deepnote index`). */
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

export interface IngestJobsService {
  /** Records a job for an upload already on disk and starts it (the `202`). */
  readonly submit: (tenant: Tenant, collection: string, upload: StoredDocuments) => Effect.Effect<IngestJob>
  readonly get: (tenant: Tenant, collection: string, jobId: string) => Effect.Effect<IngestJob, NotFound>
}

/**
 * Document uploads indexed in the background, one job per upload: the body is on disk when the job starts, and the
 * ingest worker thread validates it, then adds it in batches of 2000 (one transaction each), so the event loop only
 * relays progress. Job status is kept in the store, so it outlives a restart: jobs a stopped server left unfinished
 * read as `interrupted` (their committed batches stay in the collection; uploading again skips the documents already
 * added). The stored upload is deleted when its job ends.
 */
/** A job left by a process that is gone: no owner recorded, silent for 10 minutes, or a dead process of this machine. */
const isOrphaned = (
  job: { readonly owner: string | undefined; readonly heartbeatAt: number | undefined },
  now: number
) => {
  if (job.owner === undefined || job.heartbeatAt === undefined) return true
  if (now - job.heartbeatAt > 10 * 60_000) return true
  const [host = "", pid] = job.owner.split(":")
  return hasEndedHere(host, Number(pid))
}

export class IngestJobs extends Context.Tag("@deepnote-rag/server/IngestJobs")<IngestJobs, IngestJobsService>() {
  static readonly make: Effect.Effect<
    IngestJobsService,
    never,
    IngestJobLog | IngestWorkerPool | Home | FileSystem.FileSystem | Scope.Scope
  > = Effect.gen(function*() {
    const log = yield* IngestJobLog
    const workers = yield* IngestWorkerPool
    const home = yield* Home
    const fs = yield* FileSystem.FileSystem
    const fibers = yield* FiberSet.make()
    yield* Effect.orDie(log.prune(keptJobs))
    const owner = processOwner("server")
    const ownerKey = `${owner.host}:${owner.pid}:${owner.id}`
    const startedAt = yield* Clock.currentTimeMillis
    const interrupted = yield* Effect.orDie(log.interruptOrphaned((job) => isOrphaned(job, startedAt)))
    if (interrupted > 0) {
      yield* Effect.logWarning(
        `${counted(interrupted, "document upload")} cut off by the last stop: marked interrupted`
      )
    }
    const swept = yield* Effect.orDie(sweepUploads(home.root, startedAt))
    if (swept > 0) yield* Effect.logInfo(`removed ${counted(swept, "unfinished upload file")} left by the last stop`)
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

    const removeUpload = (file: string) =>
      Effect.forEach([file, receiptFile(file)], (f) => fs.remove(f, { force: true }), { discard: true }).pipe(
        Effect.catchAll((e) => Effect.logWarning(`could not remove the stored upload ${file}: ${e.message}`))
      )

    const run = (tenant: Tenant, id: string, collection: string, upload: StoredDocuments) =>
      workers.ingest(
        new IngestUpload({
          collection: storedName(tenant, collection),
          file: upload.file,
          kind: upload.kind,
          batchSize
        })
      ).pipe(
        Stream.runForEach((progress) =>
          progress.phase === "validating"
            ? log.update(id, { status: "running" })
            : log.update(id, { added: progress.added, skipped: progress.skipped })
        ),
        // the stored upload goes before the job reads as ended (a client that sees `done` finds nothing left)
        Effect.zipRight(removeUpload(upload.file)),
        Effect.zipRight(Effect.flatMap(now, (finishedAt) => log.update(id, { status: "done", finishedAt }))),
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          const failure = Cause.failureOption(cause)
          const message = Option.isSome(failure) && failure.value._tag === "IngestFailed"
            ? failure.value.message
            : cause.toString().split("\n")[0] ?? "failed"
          return removeUpload(upload.file).pipe(
            Effect.zipRight(now),
            Effect.flatMap((finishedAt) => log.update(id, { status: "failed", finishedAt, message }))
          )
        }),
        Effect.orDie,
        Effect.ensuring(removeUpload(upload.file)),
        Effect.withSpan("IngestJobs.run", {
          attributes: { "deepnote.collection": collection, "deepnote.job.id": id, "deepnote.tenant.id": tenant.id }
        })
      )

    return IngestJobs.of({
      submit: Effect.fn("IngestJobs.submit")(function*(tenant: Tenant, collection: string, upload: StoredDocuments) {
        const record: IngestJobRecord = {
          id: `j-${randomBytes(6).toString("hex")}`,
          tenantId: tenant.id,
          collection,
          status: "queued",
          received: upload.records,
          added: 0,
          skipped: 0,
          message: undefined,
          createdAt: yield* now,
          finishedAt: undefined,
          owner: ownerKey
        }
        yield* Effect.annotateCurrentSpan({ "deepnote.job.id": record.id, "deepnote.tenant.id": tenant.id })
        yield* Effect.orDie(log.create(record)).pipe(Effect.onError(() => removeUpload(upload.file)))
        yield* FiberSet.run(fibers, run(tenant, record.id, collection, upload))
        return toJob(record)
      }),
      get: Effect.fn("IngestJobs.get")(function*(tenant: Tenant, collection: string, jobId: string) {
        const found = yield* Effect.orDie(log.get(jobId))
        if (Option.isNone(found) || found.value.tenantId !== tenant.id || found.value.collection !== collection) {
          return yield* NotFound.of(`job ${jobId} not found`)
        }
        return toJob(found.value)
      })
    })
  })

  /** The live service (and its worker pool). */
  static readonly layer = Layer.scoped(IngestJobs, IngestJobs.make).pipe(Layer.provide(IngestWorkerPool.layer))
}
