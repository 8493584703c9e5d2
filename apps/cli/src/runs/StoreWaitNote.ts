import type { StoreOutageChange } from "@deepnote-rag/runs"
import { Duration, Effect, Ref } from "effect"

/**
 * While the store cannot be reached (a Postgres restart or failover) the run's questions wait (they do not fail): the
 * progress line says "waiting for the store", and a line is written when the outage begins and when it ends.
 */
export const noteStoreOutage = (
  note: Ref.Ref<string | undefined>,
  write: (line: string) => Effect.Effect<void>
) =>
(change: StoreOutageChange): Effect.Effect<void> =>
  change._tag === "StoreUnreachable"
    ? Effect.zipRight(
      Ref.set(note, "waiting for the store"),
      write(
        `the store cannot be reached (questions wait up to ${
          Duration.format(change.tolerance)
        }, nothing fails): ${change.message}`
      )
    )
    : Effect.zipRight(
      Ref.set(note, undefined),
      write(`the store is back after ${Math.max(1, Math.round(change.downMs / 1000))} s: the run continues`)
    )
