import { counted } from "@deepnote-rag/core"
import { EventLog, Journal, type PendingItem, type Run, RunStore, StoreError } from "@deepnote-rag/store"
import { Context, Data, Deferred, Effect, Layer, Option, RcMap, Ref, type Scope, Tracer } from "effect"
import { executeRunItem } from "../Executor/ExecuteRunItem.js"
import { RunEvents } from "../Executor/RunEvents.js"
import { planOf } from "../Executor/RunPlan.js"
import { defaultStoreOutageTolerance, logStoreOutage, makeStoreOutage } from "../Executor/StoreOutage.js"
import { EngineUnavailable } from "./EngineUnavailable.js"
import type { WorkerOptions, WorkerTally } from "./WorkerOptions.js"
import { makeWorkerRunViews } from "./WorkerRunViews.js"
import { jobId, type JobMeta, type QuestionJob } from "./WorkQueue.js"

/** What became of a job the worker finished (a job given back to the queue ends interrupted instead). */
export type JobOutcome = "done" | "failed" | "skipped"

/** Executes one question job; the queue gives the job back when this is interrupted or fails. */
export type JobHandler = (job: QuestionJob, meta: JobMeta) => Effect.Effect<JobOutcome, unknown>

/**
 * How a queue worker executes one question job: claims its question in the store (a question runs under one job at a
 * time, and a done question is never done again), fails a question that stopped its worker too often, starts a queued
 * run, executes the question through its journal with the run's engine (built once per run while its jobs come) and
 * completes the run after its last question — every step riding out a store outage while the job is still this
 * worker's. The LLM calls go into `tally`; a question stopped by `stopping` goes back to the queue, journaled.
 */
export const makeJobHandler = (
  options: WorkerOptions,
  worker: { readonly stopping: Deferred.Deferred<void>; readonly tally: Ref.Ref<WorkerTally> }
): Effect.Effect<JobHandler, never, RunStore | Journal | EventLog | RunEvents | Scope.Scope> =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const hub = yield* RunEvents
    // the services only: the captured span (QueueWorker.run) must not replace a job's own span as its questions' parent
    const context = Context.omit(Tracer.ParentSpan)(yield* Effect.context<RunStore | Journal | EventLog | RunEvents>())
    const maxAttempts = options.maxAttempts ?? 3
    const { stopping, tally } = worker
    const views = yield* makeWorkerRunViews(store, options)
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

    /** A question stops at its next call when the worker stops or its run was cancelled. */
    const stoppingFor = (job: QuestionJob) =>
      Effect.flatMap(Deferred.isDone(stopping), (stop) => stop ? Effect.succeed(true) : views.cancelled(job))

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
        const found = yield* views.runOf(job)
        if (Option.isNone(found)) {
          yield* Effect.logWarning(`job for unknown run ${job.runId} (question ${job.itemId}): dropped`)
          return "skipped" as const
        }
        const run = found.value
        if (run.status === "interrupted") {
          yield* store.releaseItem(job.runId, job.itemId, key)
          return "skipped" as const
        }
        const refusal = yield* views.refusalOf(job.runId)
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

    return (job, meta) =>
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
          Effect.flatMap(RcMap.get(engines, job.runId), (engine) => {
            const question = executeRunItem(plan, engine, item, stoppingFor(job), { claimed: true })
            return options.aroundQuestion === undefined ? question : options.aroundQuestion(question)
          })
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
  })

/** A store outage outlasted the job's lock and another worker took the job over. */
class JobTakenOver extends Data.TaggedError("JobTakenOver") {}
