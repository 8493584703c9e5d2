import { errorMessage } from "@deepnote-rag/core"
import { type EventLog, type Journal, RunStore } from "@deepnote-rag/store"
import { Cause, Clock, Deferred, Effect, Exit, Ref, type Scope } from "effect"
import type { RunEvents } from "../Executor/RunEvents.js"
import { watchIdle } from "./IdleWatch.js"
import { type JobHandler, type JobOutcome, makeJobHandler } from "./JobHandler.js"
import { stopTakers } from "./StopTakers.js"
import { TakerActivity } from "./TakerActivity.js"
import type { WorkerOptions, WorkerSummary, WorkerTally } from "./WorkerOptions.js"
import { WorkQueue } from "./WorkQueue.js"

/**
 * A queue worker: takes question jobs of any run from the work queue and executes them through the journal, as many
 * at once as `concurrency` (one taker each). Each job claims its question in the store first, so a question runs under
 * one job at a time and a done question is never done again; a job whose worker died is taken over when its lock
 * expires, and resumes from the journal. On interruption it stops taking jobs and lets the questions in flight reach
 * their next call boundary (they go back to the queue, journaled), then ends.
 */
export const runWorker = (
  options: WorkerOptions
): Effect.Effect<WorkerSummary, never, WorkQueue | RunStore | Journal | EventLog | RunEvents | Scope.Scope> =>
  Effect.gen(function*() {
    const stopping = yield* Deferred.make<void>()
    const idle = yield* Deferred.make<void>()
    const tally = yield* Ref.make<WorkerTally>({
      done: 0,
      failed: 0,
      skipped: 0,
      refused: 0,
      executedCalls: 0,
      replayedCalls: 0
    })
    const activity = new TakerActivity(yield* Clock.currentTimeMillis)
    const handle = yield* makeJobHandler(options, { stopping, tally })
    const queue = yield* WorkQueue
    const takers = yield* Effect.forEach(
      Array.from({ length: options.concurrency }, (_, slot) => slot),
      (slot) => Effect.fork(taker(slot, { queue, handle, stopping, tally, activity }))
    )
    if (options.idleExit !== undefined) {
      yield* Effect.forkScoped(watchIdle(options.idleExit, activity, yield* RunStore, idle))
    }
    const stop = stopTakers({ stopping, takers, activity, drainTimeout: options.drainTimeout ?? "10 seconds" })
    const reason = yield* Deferred.await(idle).pipe(
      Effect.as("idle" as const),
      Effect.onInterrupt(() => stop)
    )
    yield* stop
    return { ...(yield* Ref.get(tally)), reason }
  }).pipe(Effect.withSpan("QueueWorker.run", { attributes: { "deepnote.concurrency": options.concurrency } }))

/** One of the worker's `concurrency` loops: takes a job, executes it, counts what became of it, until the stop. */
const taker = (slot: number, worker: {
  readonly queue: WorkQueue["Type"]
  readonly handle: JobHandler
  readonly stopping: Deferred.Deferred<void>
  readonly tally: Ref.Ref<WorkerTally>
  readonly activity: TakerActivity
}) =>
  Effect.gen(function*() {
    const { activity, tally } = worker
    const count = (outcome: JobOutcome) => Ref.update(tally, (t) => ({ ...t, [outcome]: t[outcome] + 1 }))
    while (!(yield* Deferred.isDone(worker.stopping))) {
      const exit = yield* Effect.exit(worker.queue.take((job, meta) =>
        Effect.suspend(() => {
          activity.busy.add(slot)
          return worker.handle(job, meta)
        })
      ))
      activity.busy.delete(slot)
      activity.lastActivity = yield* Clock.currentTimeMillis
      if (Exit.isSuccess(exit)) {
        yield* count(exit.value)
      } else if (!Exit.isInterrupted(exit)) {
        // the store or the queue failed (unreachable database): the job went back; wait a little and go on
        yield* Effect.logWarning(
          `a question job failed; it goes back to the queue: ${errorMessage(Cause.squash(exit.cause))}`
        )
        yield* Effect.sleep("1 second")
      }
    }
  })
