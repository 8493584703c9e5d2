import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { makeQueries } from "./internal/query.js"
import { byteOrder, DbInt, nowIso, orUndefined } from "./internal/sql.js"

export const IngestJobStatus = Schema.Literal("queued", "running", "done", "failed", "interrupted")
export type IngestJobStatus = typeof IngestJobStatus.Type

/** One background upload of documents into a collection, as the HTTP app reports it. */
export interface IngestJobRecord {
  readonly id: string
  readonly tenantId: string
  readonly collection: string
  readonly status: IngestJobStatus
  /** Documents in the upload. */
  readonly received: number
  readonly added: number
  /** Documents whose id the collection already had. */
  readonly skipped: number
  readonly message: string | undefined
  readonly createdAt: string
  readonly finishedAt: string | undefined
  /** The process that runs it (`host:pid:id`), when known. */
  readonly owner?: string | undefined
}

export type IngestJobProgress = Partial<
  Pick<IngestJobRecord, "status" | "added" | "skipped" | "message" | "finishedAt">
>

export interface IngestJobLogService {
  readonly create: (job: IngestJobRecord) => Effect.Effect<void, StoreError>
  readonly update: (id: string, progress: IngestJobProgress) => Effect.Effect<void, StoreError>
  readonly get: (id: string) => Effect.Effect<Option.Option<IngestJobRecord>, StoreError>
  /**
   * Marks jobs left `queued` or `running` by a process that stopped as `interrupted` (the upload's documents lived in
   * that process; batches it committed stay in the collection): those `orphaned` says so, given each job's owner and
   * last progress (epoch ms) — a job another live replica runs is left alone. Returns how many.
   */
  readonly interruptOrphaned: (
    orphaned: (job: { readonly owner: string | undefined; readonly heartbeatAt: number | undefined }) => boolean
  ) => Effect.Effect<number, StoreError>
  /** Deletes all but the newest `keep` jobs (run at startup, not per upload). Returns how many were deleted. */
  readonly prune: (keep: number) => Effect.Effect<number, StoreError>
}

const JobRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  collection: Schema.String,
  status: IngestJobStatus,
  received: Schema.Int,
  added: Schema.Int,
  skipped: Schema.Int,
  message: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String),
  owner: Schema.NullOr(Schema.String),
  heartbeat_at: Schema.NullOr(DbInt)
})

const Progress = Schema.Struct({
  status: Schema.optional(IngestJobStatus),
  added: Schema.optional(Schema.Int),
  skipped: Schema.optional(Schema.Int),
  message: Schema.optional(Schema.String),
  finished_at: Schema.optional(Schema.String),
  heartbeat_at: Schema.optional(Schema.Number)
})

const interruptedMessage =
  "the server stopped before this upload finished; upload it again (documents already added are skipped)"

/** The `ingest_jobs` table: status of the HTTP app's background uploads, across restarts. */
export class IngestJobLog extends Context.Tag("@deepnote-rag/store/IngestJobLog")<IngestJobLog, IngestJobLogService>() {
  static readonly make: Effect.Effect<IngestJobLogService, never, SqlClient.SqlClient> = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { execute, findAll, findOne } = makeQueries(sql)
    const insert = execute({
      table: "ingest_jobs",
      action: "recording an ingest job",
      Request: JobRow,
      execute: (row) => sql`INSERT INTO ingest_jobs ${sql.insert(row)}`
    })
    const update = execute({
      table: "ingest_jobs",
      action: "updating an ingest job",
      Request: Schema.Struct({ id: Schema.String, columns: Progress }),
      execute: ({ columns, id }) => sql`UPDATE ingest_jobs SET ${sql.update(columns)} WHERE id = ${id}`
    })
    const select = findOne({
      table: "ingest_jobs",
      action: "reading an ingest job",
      Request: Schema.String,
      Result: JobRow,
      execute: (id) => sql`SELECT * FROM ingest_jobs WHERE id = ${id}`
    })
    const unfinished = findAll({
      table: "ingest_jobs",
      action: "reading unfinished ingest jobs",
      Request: Schema.Void,
      Result: Schema.Struct({
        id: Schema.String,
        owner: Schema.NullOr(Schema.String),
        heartbeat_at: Schema.NullOr(DbInt)
      }),
      execute: () => sql`SELECT id, owner, heartbeat_at FROM ingest_jobs WHERE status IN ('queued', 'running')`
    })
    const interrupt = findAll({
      table: "ingest_jobs",
      action: "interrupting unfinished ingest jobs",
      Request: Schema.Struct({ ids: Schema.Array(Schema.String), finishedAt: Schema.String, message: Schema.String }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: (r) =>
        sql`UPDATE ingest_jobs SET status = 'interrupted', finished_at = ${r.finishedAt}, message = ${r.message}
          WHERE status IN ('queued', 'running') AND ${sql.in("id", r.ids)} RETURNING id`
    })
    const prune = findAll({
      table: "ingest_jobs",
      action: "pruning ingest jobs",
      Request: Schema.Int,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (keep) =>
        sql`DELETE FROM ingest_jobs WHERE id NOT IN
          (SELECT id FROM ingest_jobs ORDER BY created_at${byteOrder(sql)} DESC LIMIT ${keep}) RETURNING id`
    })
    return IngestJobLog.of({
      create: Effect.fn("IngestJobLog.create")(function*(job: IngestJobRecord) {
        yield* Effect.annotateCurrentSpan({ "deepnote.job.id": job.id, "deepnote.tenant.id": job.tenantId })
        yield* insert({
          id: job.id,
          tenant_id: job.tenantId,
          collection: job.collection,
          status: job.status,
          received: job.received,
          added: job.added,
          skipped: job.skipped,
          message: job.message ?? null,
          created_at: job.createdAt,
          finished_at: job.finishedAt ?? null,
          owner: job.owner ?? null,
          heartbeat_at: yield* Clock.currentTimeMillis
        })
      }),
      update: Effect.fn("IngestJobLog.update")(function*(id: string, progress: IngestJobProgress) {
        yield* Effect.annotateCurrentSpan({ "deepnote.job.id": id })
        const columns = {
          ...(progress.status === undefined ? {} : { status: progress.status }),
          ...(progress.added === undefined ? {} : { added: progress.added }),
          ...(progress.skipped === undefined ? {} : { skipped: progress.skipped }),
          ...(progress.message === undefined ? {} : { message: progress.message }),
          ...(progress.finishedAt === undefined ? {} : { finished_at: progress.finishedAt })
        }
        if (Object.keys(columns).length === 0) return
        yield* update({ id, columns: { ...columns, heartbeat_at: yield* Clock.currentTimeMillis } })
      }),
      get: Effect.fn("IngestJobLog.get")(function*(id: string) {
        yield* Effect.annotateCurrentSpan({ "deepnote.job.id": id })
        return Option.map(yield* select(id), (r): IngestJobRecord => ({
          id: r.id,
          tenantId: r.tenant_id,
          collection: r.collection,
          status: r.status,
          received: r.received,
          added: r.added,
          skipped: r.skipped,
          message: orUndefined(r.message),
          createdAt: r.created_at,
          finishedAt: orUndefined(r.finished_at)
        }))
      }),
      interruptOrphaned: Effect.fn("IngestJobLog.interruptOrphaned")(function*(
        orphaned: (job: { readonly owner: string | undefined; readonly heartbeatAt: number | undefined }) => boolean
      ) {
        const ids = (yield* unfinished(undefined))
          .filter((r) => orphaned({ owner: orUndefined(r.owner), heartbeatAt: orUndefined(r.heartbeat_at) }))
          .map((r) => r.id)
        if (ids.length === 0) return 0
        return (yield* interrupt({ ids, finishedAt: yield* nowIso, message: interruptedMessage })).length
      }),
      prune: Effect.fn("IngestJobLog.prune")(function*(keep: number) {
        return (yield* prune(keep)).length
      })
    })
  })

  static readonly layer: Layer.Layer<IngestJobLog, never, SqlClient.SqlClient> = Layer.effect(
    IngestJobLog,
    IngestJobLog.make
  )
}
