import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { StoreError } from "./Domain/Errors.js"
import { decodeRowWith, nowIso, sqlFailure } from "./internal/sql.js"

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
   * that process; batches it committed stay in the collection). Returns how many.
   */
  readonly interruptUnfinished: Effect.Effect<number, StoreError>
  /** Deletes all but the newest `keep` jobs (run at startup, not per upload). Returns how many were deleted. */
  readonly prune: (keep: number) => Effect.Effect<number, StoreError>
}

const JobRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  collection: Schema.String,
  status: IngestJobStatus,
  received: Schema.Number,
  added: Schema.Number,
  skipped: Schema.Number,
  message: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String)
})
const decodeRow = decodeRowWith(JobRow, "ingest job row")

/** The `ingest_jobs` table: status of the HTTP app's background uploads, across restarts. */
export class IngestJobLog extends Context.Tag("@deepnote/store/IngestJobLog")<IngestJobLog, IngestJobLogService>() {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return IngestJobLog.of({
      create: Effect.fn("IngestJobLog.create")(function*(job: IngestJobRecord) {
        yield* Effect.annotateCurrentSpan({ "deepnote.job.id": job.id, "deepnote.tenant.id": job.tenantId })
        yield* sql`INSERT INTO ingest_jobs ${
          sql.insert({
            id: job.id,
            tenant_id: job.tenantId,
            collection: job.collection,
            status: job.status,
            received: job.received,
            added: job.added,
            skipped: job.skipped,
            message: job.message ?? null,
            created_at: job.createdAt,
            finished_at: job.finishedAt ?? null
          })
        }`.pipe(sqlFailure("recording an ingest job"))
      }),
      update: Effect.fn("IngestJobLog.update")(function*(id: string, progress: IngestJobProgress) {
        const columns = {
          ...(progress.status === undefined ? {} : { status: progress.status }),
          ...(progress.added === undefined ? {} : { added: progress.added }),
          ...(progress.skipped === undefined ? {} : { skipped: progress.skipped }),
          ...(progress.message === undefined ? {} : { message: progress.message }),
          ...(progress.finishedAt === undefined ? {} : { finished_at: progress.finishedAt })
        }
        if (Object.keys(columns).length === 0) return
        yield* sql`UPDATE ingest_jobs SET ${sql.update(columns)} WHERE id = ${id}`.pipe(
          sqlFailure("updating an ingest job")
        )
      }),
      get: Effect.fn("IngestJobLog.get")(function*(id: string) {
        const rows = yield* sql`SELECT * FROM ingest_jobs WHERE id = ${id}`.pipe(sqlFailure("reading an ingest job"))
        if (rows[0] === undefined) return Option.none()
        const r = yield* decodeRow(rows[0])
        return Option.some<IngestJobRecord>({
          id: r.id,
          tenantId: r.tenant_id,
          collection: r.collection,
          status: r.status,
          received: r.received,
          added: r.added,
          skipped: r.skipped,
          message: r.message ?? undefined,
          createdAt: r.created_at,
          finishedAt: r.finished_at ?? undefined
        })
      }),
      interruptUnfinished: Effect.gen(function*() {
        const finishedAt = yield* nowIso
        const rows = yield* sql<
          { id: string }
        >`UPDATE ingest_jobs SET status = 'interrupted', finished_at = ${finishedAt},
          message = 'the server stopped before this upload finished; upload it again (documents already added are skipped)'
          WHERE status IN ('queued', 'running') RETURNING id`.pipe(sqlFailure("interrupting unfinished ingest jobs"))
        return rows.length
      }).pipe(Effect.withSpan("IngestJobLog.interruptUnfinished")),
      prune: Effect.fn("IngestJobLog.prune")(function*(keep: number) {
        const rows = yield* sql<{ id: string }>`DELETE FROM ingest_jobs WHERE id NOT IN
          (SELECT id FROM ingest_jobs ORDER BY created_at DESC LIMIT ${keep}) RETURNING id`.pipe(
          sqlFailure("pruning ingest jobs")
        )
        return rows.length
      })
    })
  })

  static readonly layer: Layer.Layer<IngestJobLog, never, SqlClient.SqlClient> = Layer.effect(
    IngestJobLog,
    IngestJobLog.make
  )
}
