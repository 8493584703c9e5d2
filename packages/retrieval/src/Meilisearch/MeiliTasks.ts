import { Duration, Effect, Option } from "effect"
import { MeiliError } from "./MeiliError.js"
import type { MeiliCall } from "./MeiliHttp.js"
import { type EnqueuedTask, Task } from "./MeiliReplies.js"

export interface TaskWait {
  /** How long one task may take from its enqueueing until it succeeds or fails. */
  readonly deadline: Duration.DurationInput
  /** First delay between polls; it doubles up to `maxInterval`. */
  readonly interval?: Duration.DurationInput
  readonly maxInterval?: Duration.DurationInput
}

const finished = (task: Task) => task.status === "succeeded" || task.status === "failed" || task.status === "canceled"

/**
 * Polls `GET /tasks/{uid}` until the task succeeds (its final state is returned) or fails (a `MeiliError` with
 * Meilisearch's own error message and code), backing off from 50 ms to 1 s between polls; past the deadline the wait
 * ends with a `deadline` error (the task itself goes on in Meilisearch).
 */
export const waitForTask = (call: MeiliCall, shown: string, enqueued: EnqueuedTask, wait: TaskWait) =>
  Effect.gen(function*() {
    const uid = enqueued.taskUid
    const what = `task ${uid} (${enqueued.type}${enqueued.indexUid === null ? "" : ` on index ${enqueued.indexUid}`})`
    const poll = call("GET", `/tasks/${uid}`, Task)
    const maxInterval = Duration.decode(wait.maxInterval ?? "1 second")
    const until = (delay: Duration.Duration): Effect.Effect<Task, MeiliError> =>
      Effect.flatMap(poll, (task) =>
        finished(task)
          ? Effect.succeed(task)
          : Effect.zipRight(Effect.sleep(delay), until(Duration.min(Duration.times(delay, 2), maxInterval))))
    const deadline = Duration.decode(wait.deadline)
    const last = yield* until(Duration.decode(wait.interval ?? "50 millis")).pipe(Effect.timeoutOption(deadline))
    if (Option.isNone(last)) {
      return yield* new MeiliError({
        reason: "deadline",
        message: `Meilisearch at ${shown}: ${what} did not finish within ${
          Duration.format(deadline)
        } (it goes on in Meilisearch: GET /tasks/${uid})`
      })
    }
    const task = last.value
    if (task.status !== "succeeded") {
      return yield* new MeiliError({
        reason: "task",
        ...(task.error === null ? {} : { code: task.error.code }),
        message: `Meilisearch at ${shown}: ${what} ${task.status}${
          task.error === null ? "" : `: ${task.error.message} (${task.error.code})`
        }`
      })
    }
    return task
  })
