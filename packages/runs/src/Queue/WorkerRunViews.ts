import type { Run, RunStoreService, StoreError } from "@deepnote-rag/store"
import { Cache, Effect, Option } from "effect"
import type { WorkerOptions } from "./WorkerOptions.js"
import type { QuestionJob } from "./WorkQueue.js"

/** A queue worker's view of the runs its jobs belong to, read from the store at most every `statusInterval`. */
export interface WorkerRunViews {
  /**
   * The job's run as this worker last read it (at most `statusInterval` old), read again when the job is newer than
   * that view: a resume enqueues a new generation, and a view from before it may still say the run was cancelled —
   * its questions would be dropped or stopped, pending with no job left (a run that never finishes).
   */
  readonly runOf: (job: QuestionJob) => Effect.Effect<Option.Option<Run>, StoreError>
  /** Why this process does not take the run's jobs (`WorkerOptions.refuse`), asked at most once a minute per run. */
  readonly refusalOf: (runId: string) => Effect.Effect<Option.Option<string>, StoreError>
  /** A question stops at its next call when its run was cancelled (a store that cannot say: it goes on). */
  readonly cancelled: (job: QuestionJob) => Effect.Effect<boolean>
}

export const makeWorkerRunViews = (
  store: RunStoreService,
  options: Pick<WorkerOptions, "statusInterval" | "refuse">
): Effect.Effect<WorkerRunViews> =>
  Effect.gen(function*() {
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

    const runOf = (job: QuestionJob) =>
      Effect.flatMap(
        runNamed(job.runId),
        (found) =>
          Option.isSome(found) && found.value.queueGeneration < job.generation
            ? Effect.zipRight(runs.refresh(job.runId), runNamed(job.runId))
            : Effect.succeed(found)
      )

    return {
      runOf,
      refusalOf: (runId) => Effect.tapError(refusals.get(runId), () => refusals.invalidate(runId)),
      cancelled: (job) =>
        Effect.map(runOf(job), (run) => Option.isSome(run) && run.value.status === "interrupted").pipe(
          Effect.orElseSucceed(() => false) // the question goes on (and meets the outage too)
        )
    }
  })

const noRefusal = () => Effect.succeed(Option.none<string>())
