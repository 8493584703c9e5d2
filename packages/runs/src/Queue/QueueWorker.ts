import { counted, errorMessage } from "@deepnote-rag/core"
import { EventLog, Journal, type PendingItem, type Run, RunStore, StoreError } from "@deepnote-rag/store"
import {
  Cache,
  Cause,
  Clock,
  Context,
  Data,
  Deferred,
  Duration,
  Effect,
  Exit,
  Fiber,
  Layer,
  Option,
  RcMap,
  Ref,
  type Scope,
  Tracer
} from "effect"
import type { EngineServices } from "../Executor/EngineServices.js"
import { executeRunItem } from "../Executor/ExecuteRunItem.js"
import { RunEvents } from "../Executor/RunEvents.js"
import { planOf } from "../Executor/RunPlan.js"
import { defaultStoreOutageTolerance, makeStoreOutage, type StoreOutageChange } from "../Executor/StoreOutage.js"
import { jobId, type JobMeta, type QuestionJob, WorkQueue } from "./WorkQueue.js"

export interface WorkerOptions {
  /** Questions this process executes at once (one job each). */
  readonly concurrency: number
  /** The engine a run's questions are answered with; built once per run while its jobs come, shared by them. */
  readonly engineFor: (run: Run) => Layer.Layer<EngineServices, unknown>
  /**
   * Why this process cannot take a run's jobs (e.g. its copy of the collection differs from the run's): the job goes
   * back to the queue for another worker, with no attempt counted. Asked once per run.
   */
  readonly refuse?: (run: Run) => Effect.Effect<Option.Option<string>>
  /** Stop (with reason `idle`) after this long without a job. Default: never. */
  readonly idleExit?: Duration.DurationInput
  /** A question that stopped its worker (crash, out of memory) this many times is failed. Default 3. */
  readonly maxAttempts?: number
  /** After a stop request, how long questions in flight may run to their next call boundary. Default 10 s. */
  readonly drainTimeout?: Duration.DurationInput
  /** How stale a run's status may be (a cancelled run's questions stop within this). Default 2 s. */
  readonly statusInterval?: Duration.DurationInput
  /**
   * Wraps each question's execution: the HTTP app runs questions on a scheduler that yields to the event loop, so a
   * CPU-bound engine never starves its requests (only the question: the queue's own fibers keep the default one).
   */
  readonly aroundQuestion?: <A, E, R>(question: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * How long a question that met a store outage (a Postgres restart or failover) waits for the store, holding its job,
   * before its job goes back to the queue. Default 5 minutes (`DEEPNOTE_STORE_OUTAGE_TOLERANCE`).
   */
  readonly storeOutageTolerance?: Duration.DurationInput
  /** Told when a store outage begins and ends. Default: a log line each. */
  readonly onStoreOutage?: (change: StoreOutageChange) => Effect.Effect<void>
}

export interface WorkerSummary {
  readonly done: number
  readonly failed: number
  /** Jobs with nothing to do: a question already done or held by another job, a cancelled run. */
  readonly skipped: number
  /** Jobs given back because this process cannot serve their run. */
  readonly refused: number
  readonly executedCalls: number
  readonly replayedCalls: number
  /** Why the worker ended: no job for `idleExit`, or a stop request (SIGINT/SIGTERM). */
  readonly reason: "idle" | "stopped"
}

type Outcome = "done" | "failed" | "skipped"

/**
 * A queue worker: takes question jobs of any run from the work queue and executes them through the journal, as many
 * at once as `concurrency`. Each job claims its question in the store first, so a question runs under one job at a
 * time and a done question is never done again; a job whose worker died is taken over when its lock expires, and
 * resumes from the journal. On interruption it stops taking jobs and lets the questions in flight reach their next call
 * boundary (they go back to the queue, journaled), then ends.
 */
export const runWorker = (
  options: WorkerOptions
): Effect.Effect<WorkerSummary, never, WorkQueue | RunStore | Journal | EventLog | RunEvents | Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* WorkQueue
    const store = yield* RunStore
    const hub = yield* RunEvents
    // the services only: the captured span (QueueWorker.run) must not replace a job's own span as its questions' parent
    const context = Context.omit(Tracer.ParentSpan)(yield* Effect.context<RunStore | Journal | EventLog | RunEvents>())
    const maxAttempts = options.maxAttempts ?? 3
    const stopping = yield* Deferred.make<void>()
    const idle = yield* Deferred.make<void>()
    const tally = yield* Ref.make({ done: 0, failed: 0, skipped: 0, refused: 0, executedCalls: 0, replayedCalls: 0 })
    const busy = new Set<number>()
    let lastActivity = yield* Clock.currentTimeMillis

    // a store failure is not cached (`Cache` keeps failures for their time to live): the next job reads again
    const runs = yield* Cache.make({
      capacity: 1024,
      timeToLive: options.statusInterval ?? "2 seconds",
      lookup: (runId: string) =>
        store.getRun(runId).pipe(
          Effect.map(Option.some),
          Effect.catchTag("RunNotFound", () => Effect.succeed(Option.none<Run>()))
        )
    })
    const runNamed = (runId: string) => Effect.tapError(runs.get(runId), () => runs.invalidate(runId))
    const refusals = yield* Cache.make({
      capacity: 1024,
      timeToLive: "1 minute",
      lookup: (runId: string) =>
        Effect.flatMap(
          runNamed(runId),
          Option.match({ onNone: () => Effect.succeed(Option.none<string>()), onSome: options.refuse ?? noRefusal })
        )
    })
    const engines = yield* RcMap.make({
      lookup: (runId: string) =>
        Effect.flatMap(
          store.getRun(runId),
          (run) =>
            Layer.build(options.engineFor(run)).pipe(
              Effect.mapError((cause) => new EngineUnavailable({ runId, cause }))
            )
        ),
      idleTimeToLive: "1 minute"
    })
    const outage = yield* makeStoreOutage({
      tolerance: options.storeOutageTolerance ?? defaultStoreOutageTolerance,
      probe: store.listRuns({ limit: 1 }),
      onChange: options.onStoreOutage ?? logStoreOutage
    })

    /**
     * The job's run as this worker last read it (at most `statusInterval` old), read again when the job is newer than
     * that view: a resume enqueues a new generation, and a view from before it may still say the run was cancelled —
     * its questions would be dropped or stopped, pending with no job left (a run that never finishes).
     */
    const runOf = (job: QuestionJob) =>
      Effect.flatMap(
        runNamed(job.runId),
        (found) =>
          Option.isSome(found) && found.value.queueGeneration < job.generation
            ? Effect.zipRight(runs.refresh(job.runId), runNamed(job.runId))
            : Effect.succeed(found)
      )

    /** A question stops at its next call when the worker stops or its run was cancelled. */
    const stoppingFor = (job: QuestionJob) =>
      Effect.flatMap(
        Deferred.isDone(stopping),
        (stop) =>
          stop ?
            Effect.succeed(true) :
            Effect.map(runOf(job), (run) => Option.isSome(run) && run.value.status === "interrupted").pipe(
              Effect.orElseSucceed(() => false) // a store that cannot say: the question goes on (and meets it too)
            )
      )

    /** After a question: the run is completed when none is left pending or running. */
    const afterItem = (runId: string) =>
      Effect.gen(function*() {
        const counts = yield* store.itemCounts(runId)
        if (counts.pending + counts.running > 0) return
        const run = yield* store.getRun(runId)
        if (run.status === "completed" || run.status === "interrupted") return
        yield* store.setRunStatus(
          runId,
          "completed",
          counts.failed > 0 ? `${counted(counts.failed, "question")} failed` : undefined
        )
        yield* hub.publish({ _tag: "RunFinished", runId, status: "completed" })
      })

    /**
     * Runs a step of a job so that it rides out a store outage: when the step met one, it waits for the store and runs
     * again — after making sure the job is still this worker's (an outage longer than the queue's lock expiration may
     * have let another worker take it over: then `JobTakenOver`, and the job is that worker's to finish).
     */
    const ridingOut = (meta: JobMeta) => <A, E, R>(step: Effect.Effect<A, E, R>) => {
      let first = true
      const stillOurs = meta.stillHeld.pipe(
        Effect.mapError((e) => new StoreError({ message: e.message, cause: e.cause })),
        Effect.filterOrFail((held) => held, () => new JobTakenOver())
      )
      return outage.rideOut(Effect.suspend(() => {
        if (first) {
          first = false
          return step
        }
        return Effect.zipRight(stillOurs, step)
      }))
    }

    /** Claims the job's question: its run and the claimed item, or what became of the job when there is nothing to do. */
    const claimFor = (job: QuestionJob, key: string) =>
      Effect.gen(function*() {
        const found = yield* runOf(job)
        if (Option.isNone(found)) {
          yield* Effect.logWarning(`job for unknown run ${job.runId} (question ${job.itemId}): dropped`)
          return "skipped" as const
        }
        const run = found.value
        if (run.status === "interrupted") {
          yield* store.releaseItem(job.runId, job.itemId, key)
          return "skipped" as const
        }
        const refusal = yield* Effect.tapError(refusals.get(job.runId), () => refusals.invalidate(job.runId))
        if (Option.isSome(refusal)) {
          yield* Effect.logWarning(`not taking run ${job.runId}'s questions: ${refusal.value}`)
          yield* Ref.update(tally, (t) => ({ ...t, refused: t.refused + 1 }))
          yield* Effect.sleep("2 seconds") // let another worker take it
          return yield* Effect.interrupt // back to the queue, no attempt counted
        }
        const claim = yield* store.claimItem(job.runId, job.itemId, key)
        if (claim._tag === "Taken") return "skipped" as const
        return { run, item: claim.item }
      })

    /** A question that stopped its worker too often is failed; any other starts its run if it is still queued. */
    const admit = (run: Run, item: PendingItem) =>
      Effect.gen(function*() {
        if (item.attempts > maxAttempts) {
          const message = `the question stopped its worker ${
            item.attempts - 1
          } times (a crash or out of memory?); failed after ${maxAttempts} attempts`
          yield* store.failItem({ runId: run.id, itemId: item.itemId, error: { tag: "WorkerCrashed", message } })
          yield* hub.publish({ _tag: "ItemFailed", runId: run.id, itemId: item.itemId, message })
          return false
        }
        // conditional in the store: this worker's view of the run may be a statusInterval old (a cancel stands)
        if (run.status !== "running" && (yield* store.startQueuedRun(run.id))) {
          yield* hub.publish({
            _tag: "RunStarted",
            runId: run.id,
            total: run.counts.total,
            pending: run.counts.pending
          })
        }
        return true
      })

    const handle = (job: QuestionJob, meta: JobMeta): Effect.Effect<Outcome, unknown> =>
      Effect.gen(function*() {
        const key = jobId(job)
        const step = ridingOut(meta)
        const claimed = yield* step(claimFor(job, key))
        if (claimed === "skipped") return claimed
        const { item, run } = claimed
        if (!(yield* step(admit(run, item)))) {
          yield* step(afterItem(job.runId))
          return "failed" as const
        }
        const plan = planOf(run)
        // done again from its journal after an outage: calls already journaled are replayed, events logged skipped
        const outcome = yield* step(Effect.scoped(
          Effect.flatMap(
            RcMap.get(engines, job.runId),
            (engine) =>
              (options.aroundQuestion ?? identity)(
                executeRunItem(plan, engine, item, stoppingFor(job), { claimed: true })
              )
          )
        ))
        yield* Ref.update(tally, (t) => ({
          ...t,
          executedCalls: t.executedCalls + outcome.executed,
          replayedCalls: t.replayedCalls + outcome.replayed
        }))
        if (outcome.stopped) {
          if (yield* Deferred.isDone(stopping)) return yield* Effect.interrupt // back to the queue, journaled
          yield* step(store.releaseItem(job.runId, job.itemId, key)) // its run was cancelled
          return "skipped" as const
        }
        yield* step(afterItem(job.runId))
        return outcome.ok ? "done" as const : "failed" as const
      }).pipe(
        Effect.catchTag("JobTakenOver", () =>
          Effect.as(
            Effect.logWarning("after the store outage another worker holds this question's job: it goes on there"),
            "skipped" as const
          )),
        Effect.provide(context),
        Effect.annotateLogs({ "deepnote.run.id": job.runId, "deepnote.item.id": job.itemId }),
        Effect.withSpan("QueueWorker.job", {
          attributes: {
            "deepnote.run.id": job.runId,
            "deepnote.item.id": job.itemId,
            "deepnote.job.generation": job.generation
          }
        })
      )

    const count = (outcome: Outcome) => Ref.update(tally, (t) => ({ ...t, [outcome]: t[outcome] + 1 }))

    const taker = (slot: number) =>
      Effect.gen(function*() {
        while (!(yield* Deferred.isDone(stopping))) {
          const exit = yield* Effect.exit(queue.take((job, meta) =>
            Effect.suspend(() => {
              busy.add(slot)
              return handle(job, meta)
            })
          ))
          busy.delete(slot)
          lastActivity = yield* Clock.currentTimeMillis
          if (Exit.isSuccess(exit)) {
            yield* count(exit.value)
          } else if (!Exit.isInterrupted(exit)) {
            // the store or the queue failed (unreachable database): the job went back; wait a little and go on
            const error = Cause.squash(exit.cause)
            yield* Effect.logWarning(
              `a question job failed; it goes back to the queue: ${
                error instanceof Error ? error.message : String(error)
              }`
            )
            yield* Effect.sleep("1 second")
          }
        }
      })

    const takers = yield* Effect.forEach(
      Array.from({ length: options.concurrency }, (_, slot) => slot),
      (slot) => Effect.fork(taker(slot))
    )
    if (options.idleExit !== undefined) {
      const limit = Duration.toMillis(Duration.decode(options.idleExit))
      let storeDown = false
      yield* Effect.gen(function*() {
        while (true) {
          yield* Effect.sleep("250 millis")
          const now = yield* Clock.currentTimeMillis
          if (busy.size > 0) storeDown = false
          if (busy.size > 0 || now - lastActivity < limit) continue
          // takers that found nothing may only have been blind: the queue's polls fail while the store cannot be
          // reached (a Postgres restart or failover), and every worker of a batch would end with the run unfinished
          const reached = yield* Effect.exit(store.listRuns({ limit: 1 }))
          if (Exit.isSuccess(reached)) return yield* Deferred.succeed(idle, undefined)
          if (!storeDown) {
            yield* Effect.logWarning(
              `the store cannot be reached: not idle, waiting for it (${errorMessage(Cause.squash(reached.cause))})`
            )
          }
          storeDown = true
          lastActivity = yield* Clock.currentTimeMillis
        }
      }).pipe(Effect.forkScoped)
    }

    /**
     * Stops taking jobs: idle takers end now, busy ones when their question reaches a call boundary — bounded by the
     * drain timeout, then interrupted, and never waited on for longer than `interruptGrace` after that (a question that
     * does not stop holds its job until this process ends and the job's lock expires; another worker then resumes it).
     * `stop` runs as a finalizer, where nothing is interruptible: the waits are made interruptible explicitly, or the
     * timeouts could never cut them short.
     */
    const stop = Effect.gen(function*() {
      yield* Deferred.succeed(stopping, undefined)
      yield* Effect.forEach(takers, (fiber, slot) => busy.has(slot) ? Effect.void : Fiber.interruptFork(fiber), {
        discard: true
      })
      const ended = (timeout: Duration.DurationInput) =>
        Effect.interruptible(Fiber.awaitAll(takers)).pipe(
          Effect.timeout(timeout),
          Effect.option,
          Effect.map(Option.isSome)
        )
      if (yield* ended(options.drainTimeout ?? "10 seconds")) return
      yield* Effect.forEach(takers, Fiber.interruptFork, { discard: true })
      if (yield* ended(interruptGrace)) return
      const running = (yield* Effect.forEach(takers, Fiber.poll)).filter(Option.isNone).length
      yield* Effect.logWarning(
        `${counted(running, "question")} did not stop within ${
          Duration.format(interruptGrace)
        } of being interrupted; ` +
          "their jobs go back to the queue once this process has ended and their locks expire"
      )
    })

    const reason = yield* Deferred.await(idle).pipe(
      Effect.as("idle" as const),
      Effect.onInterrupt(() => stop)
    )
    yield* stop
    return { ...(yield* Ref.get(tally)), reason }
  }).pipe(Effect.withSpan("QueueWorker.run", { attributes: { "deepnote.concurrency": options.concurrency } }))

/** How long `stop` waits for questions it interrupted after the drain timeout. */
const interruptGrace = Duration.seconds(5)

const noRefusal = () => Effect.succeed(Option.none<string>())

const identity = <A, E, R>(question: Effect.Effect<A, E, R>) => question

/** A store outage outlasted the job's lock and another worker took the job over. */
class JobTakenOver extends Data.TaggedError("JobTakenOver") {}

/** The default report of a store outage: a log line when it begins and one when it ends. */
const logStoreOutage = (change: StoreOutageChange): Effect.Effect<void> =>
  change._tag === "StoreUnreachable"
    ? Effect.logWarning(
      `the store cannot be reached (questions wait up to ${Duration.format(change.tolerance)}): ${change.message}`
    )
    : Effect.logInfo(`the store is back after ${Math.round(change.downMs / 1000)} s: the questions go on`)

/** A run's engine could not be built here (bad LLM settings, a missing collection). */
export class EngineUnavailable extends Data.TaggedError("EngineUnavailable")<{
  readonly runId: string
  readonly cause: unknown
}> {
  override get message(): string {
    const cause = this.cause
    return `the engine of run ${this.runId} could not start: ${
      typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause)
    }`
  }
}
