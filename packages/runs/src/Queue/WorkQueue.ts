import { PersistedQueue } from "@effect/experimental"
import { SqlClient, SqlPersistedQueue } from "@effect/sql"
import {
  Cause,
  Config,
  type ConfigError,
  Context,
  Duration,
  Effect,
  Layer,
  Option,
  type ParseResult,
  Predicate,
  Schema,
  SynchronizedRef
} from "effect"
import { createHash, randomUUID } from "node:crypto"
import { beatEvery } from "../Heartbeat.js"

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

/** What a job's handler knows of its job besides the job itself. */
export interface JobMeta {
  /** Times the job was taken before and failed (an interruption is not counted). */
  readonly attempts: number
  /**
   * Renews the job's lock when this process still holds it and says whether it does: false once its lock expired and
   * another worker took the job (a store outage longer than the lock's expiration). Work done again after an outage
   * asks first, so that one job never runs in two workers at once.
   */
  readonly stillHeld: Effect.Effect<boolean, WorkQueueError>
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
    handle: (job: QuestionJob, meta: JobMeta) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | WorkQueueError, R>
}

/** The queue's database could not be reached or refused a statement. */
export class WorkQueueError extends Schema.TaggedError<WorkQueueError>()("WorkQueueError", {
  message: Schema.String,
  /** The database's error, when there is one. */
  cause: Schema.optional(Schema.Defect)
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
 * The id this process's queue locks its jobs with (`acquired_by`). `SqlPersistedQueue` keeps it to itself, so it is
 * read from a job of a queue of this process's own, which no other worker polls: reading it from a question job
 * instead would take another worker's id for this one's whenever that job had been taken over before it was first
 * looked at (a store outage longer than the lock's expiry) — and every later renewal would then be the other's. The
 * probe's row is deleted whatever becomes of it.
 */
const ownWorkerId: Effect.Effect<
  string,
  WorkQueueError,
  PersistedQueue.PersistedQueueFactory | SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const probe = yield* PersistedQueue.make({ name: `worker-id-${randomUUID()}`, schema: Schema.Struct({}) })
  const probeId = randomUUID()
  yield* probe.offer({}, { id: probeId })
  return yield* probe.take((_, meta) =>
    sql<{ readonly acquired_by: string | null }>`SELECT acquired_by FROM ${sql(queueTable)} WHERE id = ${meta.id}`.pipe(
      Effect.flatMap((rows) => {
        const worker = rows[0]?.acquired_by
        return typeof worker === "string"
          ? Effect.succeed(worker)
          : Effect.dieMessage(`the queue's probe job ${meta.id} was not locked by its worker`)
      })
    )
  ).pipe(
    // read, failed or interrupted (a worker stopped as it started), the probe's row goes: no queue ever takes it
    Effect.ensuring(Effect.ignore(sql`DELETE FROM ${sql(queueTable)} WHERE id = ${probeId}`))
  )
}).pipe(
  Effect.mapError((e) =>
    new WorkQueueError({ message: `learning this worker's queue id failed: ${e.message}`, cause: e })
  ),
  Effect.withSpan("WorkQueue.ownWorkerId")
)

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
      // first still runs it. The heartbeat renews the job's lock, in the queue's own time format, while its handler runs
      // — only while the lock is still this process's: after a store outage longer than the expiration another worker
      // may hold it, and its lock is not ours to renew. The worker's own id is learned at its first take (`ownWorkerId`;
      // a failure is not kept: the next take tries again).
      const known = yield* SynchronizedRef.make(Option.none<string>())
      const probeContext = yield* Effect.context<PersistedQueue.PersistedQueueFactory | SqlClient.SqlClient>()
      const workerId = SynchronizedRef.modifyEffect(known, (current) =>
        Option.match(current, {
          onSome: (id) => Effect.succeed([id, current] as const),
          onNone: () => Effect.map(Effect.provide(ownWorkerId, probeContext), (id) => [id, Option.some(id)] as const)
        }))
      const renew = (id: string, worker: string) =>
        sql`UPDATE ${sql(queueTable)} SET acquired_at = ${now}
          WHERE id = ${id} AND acquired_by = ${worker} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.mapError((e) =>
            new WorkQueueError({ message: `renewing the lock of question job ${id} failed: ${e.message}`, cause: e })
          )
        )
      const heartbeat = (id: string, stillHeld: Effect.Effect<boolean, WorkQueueError>) =>
        beatEvery({
          interval: settings.lockRefreshInterval,
          beat: stillHeld,
          failure: (e) => e.message,
          recovered: `the lock of question job ${id} is renewed again`
        })
      const offer = Effect.fn("WorkQueue.offer")(function*(jobs: ReadonlyArray<QuestionJob>) {
        yield* Effect.annotateCurrentSpan("deepnote.jobs", jobs.length)
        yield* Effect.forEach(jobs, (job) => queue.offer(job, { id: jobId(job) }), { discard: true }).pipe(
          Effect.mapError((e) => new WorkQueueError({ message: `enqueueing questions failed: ${e.message}`, cause: e }))
        )
      })
      const take = <A, E, R>(
        handle: (job: QuestionJob, meta: JobMeta) => Effect.Effect<A, E, R>
      ): Effect.Effect<A, E | WorkQueueError, R> =>
        Effect.suspend(() => {
          let handled = Option.none<A>()
          return queue.take(
            (job, meta) =>
              Effect.scoped(Effect.gen(function*() {
                const stillHeld = renew(meta.id, yield* workerId)
                yield* Effect.forkScoped(heartbeat(meta.id, stillHeld))
                const result = yield* handle(job, { attempts: meta.attempts, stillHeld })
                handled = Option.some(result)
                return result
              })),
            { maxAttempts: maxHandlerFailures }
          ).pipe(
            Effect.catchIf(
              (e): e is PersistedQueue.PersistedQueueError | ParseResult.ParseError =>
                Predicate.isTagged(e, "PersistedQueueError") || Predicate.isTagged(e, "ParseError"),
              (e) => Effect.fail(new WorkQueueError({ message: `taking a question failed: ${e.message}`, cause: e }))
            ),
            // The queue marks a job done after its handler, retrying for ≈ 1.3 s and then dying: a store outage that
            // begins between the two would turn work done into a failure. The handler's result stands; the job stays
            // locked until its lock expires, and whoever takes it then finds its question done.
            Effect.catchAllCause((cause) =>
              Option.isSome(handled) && !Cause.isInterruptedOnly(cause)
                ? Effect.as(
                  Effect.logWarning(
                    `the queue could not mark a question job done (${
                      Cause.pretty(cause).split("\n")[0]
                    }): it is taken again when its lock expires and found done`
                  ),
                  handled.value
                )
                : Effect.failCause(cause)
            )
          )
        })
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
      Layer.mapError((e) => new WorkQueueError({ message: `the work queue could not start: ${e.message}`, cause: e }))
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
