import { PersistedQueue } from "@effect/experimental"
import { SqlClient, SqlPersistedQueue } from "@effect/sql"
import { Config, type ConfigError, Context, Duration, Effect, Layer, type ParseResult, Predicate, Schema } from "effect"
import { createHash } from "node:crypto"

/** One question of one run: the unit of work a queue worker takes. */
export const QuestionJob = Schema.Struct({
  runId: Schema.String,
  itemId: Schema.String,
  /** The run's enqueue generation: a resume enqueues the unfinished questions again under a new generation. */
  generation: Schema.Int
})
export type QuestionJob = typeof QuestionJob.Type

/** The job's id in the queue (at most 36 characters): the same question of the same generation is enqueued once. */
export const jobId = (job: QuestionJob): string =>
  createHash("sha256").update(`${job.runId}\u0000${job.itemId}\u0000${job.generation}`).digest("hex").slice(0, 32)

export interface WorkQueueSettings {
  /** How long a taken job stays locked without a heartbeat before another worker may take it. Default 30 s. */
  readonly lockExpiration?: Duration.DurationInput
  /** How often a worker renews the locks of the jobs it holds. Default a third of `lockExpiration`. */
  readonly lockRefreshInterval?: Duration.DurationInput
  /** How often an idle worker looks for new jobs. Default 500 ms. */
  readonly pollInterval?: Duration.DurationInput
}

export interface WorkQueueService {
  /** Enqueues jobs; a job already enqueued (same id) is not added again. Runs in the caller's transaction, if any. */
  readonly offer: (jobs: ReadonlyArray<QuestionJob>) => Effect.Effect<void, WorkQueueError>
  /**
   * Takes the next job (waiting while there is none) and runs `handle` on it under a lock that this process renews.
   * The job is done when `handle` succeeds; if it fails, the job returns to the queue with one more attempt counted;
   * if it is interrupted (the worker stops), the job returns to the queue with no attempt counted.
   */
  readonly take: <A, E, R>(
    handle: (job: QuestionJob, meta: { readonly attempts: number }) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | WorkQueueError, R>
}

/** The queue's database could not be reached or refused a statement. */
export class WorkQueueError extends Schema.TaggedError<WorkQueueError>()("WorkQueueError", {
  message: Schema.String
}) {}

/** The table the queue lives in, beside the run store's tables (same database). */
export const queueTable = "deepnote_queue"

/**
 * Jobs a handler may fail before the queue gives up on them. Handlers do not fail for a failed question (that is a
 * result); they fail only when the store is unreachable, so this is generous. Questions that crash their worker are
 * counted by the run store (`items.attempts`), which the queue cannot see.
 */
const maxHandlerFailures = 100

/**
 * The work queue of question jobs, over `@effect/sql`'s `SqlPersistedQueue` (a pull queue in the run store's own
 * database: `FOR UPDATE SKIP LOCKED` on Postgres, a single writer on SQLite). It is wrapped here so that another
 * queue (pg-boss) could replace it behind the same two methods; docs/scale-out.md gives the choice and its measurements.
 */
export class WorkQueue extends Context.Tag("@deepnote-rag/runs/WorkQueue")<WorkQueue, WorkQueueService>() {
  static readonly make = (
    settings: { readonly lockRefreshInterval: Duration.DurationInput }
  ): Effect.Effect<WorkQueueService, never, PersistedQueue.PersistedQueueFactory | SqlClient.SqlClient> =>
    Effect.gen(function*() {
      const queue = yield* PersistedQueue.make({ name: "questions", schema: QuestionJob })
      const sql = yield* SqlClient.SqlClient
      const now = sql.onDialectOrElse({
        pg: () => sql.literal("NOW()"),
        orElse: () => sql.literal("CURRENT_TIMESTAMP")
      })
      // `SqlPersistedQueue` (in @effect/sql 0.52.1) never refreshes the locks of the jobs a worker holds: it tracks them
      // in a set that nothing adds to (fixed upstream only in Effect 4: effect-smol #2606 / #2609). Without this
      // heartbeat, a question that runs longer than the lock expiration would be taken by a second worker while the
      // first still runs it. The heartbeat renews the job's lock, in the queue's own time format, while its handler runs.
      const renew = (id: string) =>
        sql`UPDATE ${sql(queueTable)} SET acquired_at = ${now} WHERE id = ${id} AND acquired_by IS NOT NULL`.pipe(
          Effect.catchAll((e) => Effect.logWarning(`could not renew the lock of question job ${id}: ${e.message}`))
        )
      const heartbeat = (id: string) =>
        Effect.sleep(settings.lockRefreshInterval).pipe(Effect.zipRight(renew(id)), Effect.forever)
      const offer = Effect.fn("WorkQueue.offer")(function*(jobs: ReadonlyArray<QuestionJob>) {
        yield* Effect.annotateCurrentSpan("deepnote.jobs", jobs.length)
        yield* Effect.forEach(jobs, (job) => queue.offer(job, { id: jobId(job) }), { discard: true }).pipe(
          Effect.mapError((e) => new WorkQueueError({ message: `enqueueing questions failed: ${e.message}` }))
        )
      })
      const take = <A, E, R>(
        handle: (job: QuestionJob, meta: { readonly attempts: number }) => Effect.Effect<A, E, R>
      ): Effect.Effect<A, E | WorkQueueError, R> =>
        queue.take(
          (job, meta) => Effect.scoped(Effect.zipRight(Effect.forkScoped(heartbeat(meta.id)), handle(job, meta))),
          { maxAttempts: maxHandlerFailures }
        ).pipe(
          Effect.catchIf(
            (e): e is PersistedQueue.PersistedQueueError | ParseResult.ParseError =>
              Predicate.isTagged(e, "PersistedQueueError") || Predicate.isTagged(e, "ParseError"),
            (e) => Effect.fail(new WorkQueueError({ message: `taking a question failed: ${e.message}` }))
          )
        )
      return WorkQueue.of({ offer, take })
    })

  /** The queue in the run store's database (needs its `SqlClient`). */
  static readonly layer = (
    settings: WorkQueueSettings = {}
  ): Layer.Layer<WorkQueue, WorkQueueError, SqlClient.SqlClient> => {
    const lockExpiration = Duration.decode(settings.lockExpiration ?? "30 seconds")
    const lockRefreshInterval = settings.lockRefreshInterval ??
      Duration.millis(Duration.toMillis(lockExpiration) / 3)
    return Layer.effect(WorkQueue, WorkQueue.make({ lockRefreshInterval })).pipe(
      Layer.provide(PersistedQueue.layer),
      Layer.provide(
        SqlPersistedQueue.layerStore({
          tableName: queueTable,
          lockExpiration,
          lockRefreshInterval,
          pollInterval: settings.pollInterval ?? "500 millis"
        })
      ),
      Layer.mapError((e) => new WorkQueueError({ message: `the work queue could not start: ${e.message}` }))
    )
  }

  /**
   * The queue with its settings from `Config`: `DEEPNOTE_QUEUE_LOCK_EXPIRATION` (how long a dead worker's question
   * stays locked, default 30 seconds) and `DEEPNOTE_QUEUE_POLL_INTERVAL` (default 500 millis).
   */
  static readonly layerConfig: Layer.Layer<WorkQueue, WorkQueueError | ConfigError.ConfigError, SqlClient.SqlClient> =
    Layer
      .unwrapEffect(
        Effect.gen(function*() {
          const lockExpiration = yield* Config.duration("DEEPNOTE_QUEUE_LOCK_EXPIRATION").pipe(
            Config.withDefault(Duration.seconds(30))
          )
          const pollInterval = yield* Config.duration("DEEPNOTE_QUEUE_POLL_INTERVAL").pipe(
            Config.withDefault(Duration.millis(500))
          )
          return WorkQueue.layer({ lockExpiration, pollInterval })
        })
      )
}
