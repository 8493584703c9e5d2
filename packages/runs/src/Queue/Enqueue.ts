import { counted } from "@deepnote-rag/core"
import { type Run, type RunNotFound, RunStore, type StoreError } from "@deepnote-rag/store"
import { Effect } from "effect"
import { type QuestionJob, WorkQueue, type WorkQueueError } from "./WorkQueue.js"

export interface Enqueued {
  readonly run: Run
  /** Jobs offered now (questions still to do). */
  readonly jobs: number
  readonly generation: number
}

/**
 * Offers a queue run's unfinished questions as jobs for the queue workers. The first enqueue (a new run) uses
 * generation 0; each later one (a resume, or `retryFailed`) starts a new generation, so its jobs are new even for
 * questions whose earlier job was consumed (a cancelled run, a failed question). Questions `running` under a live job
 * are left to that job; `done` ones are never enqueued. The run reads `created` ("queued") until a worker starts it.
 */
export const enqueueRun = (
  runId: string,
  options: { readonly retryFailed?: boolean } = {}
): Effect.Effect<Enqueued, RunNotFound | StoreError | WorkQueueError, RunStore | WorkQueue> =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const queue = yield* WorkQueue
    const before = yield* store.getRun(runId)
    const fresh = before.execution === "queue" && before.status === "created" && before.counts.running === 0 &&
      before.counts.done + before.counts.failed === 0 && before.queueGeneration === 0
    const generation = fresh ? 0 : yield* store.nextQueueGeneration(runId)
    const items = yield* store.pendingItems(runId, { includeFailed: options.retryFailed ?? false })
    const jobs: Array<QuestionJob> = items
      .filter((item) => item.status !== "running")
      .map((item) => ({ runId, itemId: item.itemId, generation }))
    // the status before the jobs: a worker that takes one must never read the run as the cancel this replaces (it
    // would drop the job and leave the question pending with none); if the jobs cannot be offered, the status returns
    const queued = items.length > 0 && before.status !== "running"
    const run = queued
      ? yield* store.setRunStatus(runId, "created", `queued: ${counted(jobs.length, "question")} for the workers`)
      : yield* store.getRun(runId)
    yield* queue.offer(jobs).pipe(
      Effect.tapError(() =>
        queued ? Effect.ignore(store.setRunStatus(runId, before.status, before.message)) : Effect.void
      )
    )
    return { run, jobs: jobs.length, generation }
  }).pipe(Effect.withSpan("WorkQueue.enqueueRun", { attributes: { "deepnote.run.id": runId } }))
