import { errorMessage } from "@deepnote-rag/core"
import type { RunStoreService } from "@deepnote-rag/store"
import { Cause, Clock, Deferred, Duration, Effect, Exit } from "effect"
import type { TakerActivity } from "./TakerActivity.js"

/**
 * Completes `idle` once no taker has held a job for `limit` and the store can be reached: takers that found nothing
 * may only have been blind — the queue's polls fail while the store cannot be reached (a Postgres restart or
 * failover), and every worker of a batch would end with the run unfinished — so an unreachable store restarts the wait.
 */
export const watchIdle = (
  limit: Duration.DurationInput,
  activity: TakerActivity,
  store: RunStoreService,
  idle: Deferred.Deferred<void>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const limitMs = Duration.toMillis(Duration.decode(limit))
    let storeDown = false
    while (true) {
      yield* Effect.sleep("250 millis")
      const now = yield* Clock.currentTimeMillis
      if (activity.busy.size > 0) storeDown = false
      if (activity.busy.size > 0 || now - activity.lastActivity < limitMs) continue
      const reached = yield* Effect.exit(store.listRuns({ limit: 1 }))
      if (Exit.isSuccess(reached)) return yield* Deferred.succeed(idle, undefined)
      if (!storeDown) {
        yield* Effect.logWarning(
          `the store cannot be reached: not idle, waiting for it (${errorMessage(Cause.squash(reached.cause))})`
        )
      }
      storeDown = true
      activity.lastActivity = yield* Clock.currentTimeMillis
    }
  })
