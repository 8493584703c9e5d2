import { type Lease, type Run, RunLeases, type RunNotFound, type StoreError } from "@deepnote-rag/store"
import { Clock, Effect, Option } from "effect"
import { describeOwner } from "../Executor/RunLease.js"

/**
 * What a run is doing, as people and scripts need it — more than the stored status says:
 * - `queued`: a queue run whose questions wait for workers;
 * - `running`: executed now — by the process holding its lease (a local run), or by queue workers;
 * - `stale`: stored as running, but no live process holds it (its owner was killed): resume it;
 * - `completed_with_failures`: finished, with failed questions (`resume --retry-failed`);
 * - `created`, `completed`, `interrupted`, `failed` as stored.
 */
export type RunState =
  | "created"
  | "queued"
  | "running"
  | "stale"
  | "completed"
  | "completed_with_failures"
  | "interrupted"
  | "failed"

export interface RunStateView {
  readonly state: RunState
  /** The process executing a local run, with its last heartbeat. */
  readonly owner?: { readonly description: string; readonly heartbeatAgeSeconds: number } | undefined
}

/** The state of a run given its live lease (if any) at `nowMs`. */
export const runStateOf = (run: Run, lease: Option.Option<Lease>, nowMs: number): RunStateView => {
  switch (run.status) {
    case "created":
      return { state: run.execution === "queue" ? "queued" : "created" }
    case "running":
      if (run.execution === "queue") return { state: "running" }
      return Option.match(lease, {
        onNone: () => ({ state: "stale" as const }),
        onSome: (l) => ({
          state: "running" as const,
          owner: {
            description: describeOwner(l.owner),
            heartbeatAgeSeconds: Math.max(0, Math.round((nowMs - l.heartbeatAt.getTime()) / 1000))
          }
        })
      })
    case "completed":
      return { state: run.counts.failed > 0 ? "completed_with_failures" : "completed" }
    default:
      return { state: run.status }
  }
}

/** One line: `running (cli run on host (pid 12), heartbeat 3 s ago)`, `stale — resumable`, `queued`, … */
export const describeRunState = (view: RunStateView): string => {
  if (view.state === "stale") return "stale — resumable"
  if (view.state === "running" && view.owner !== undefined) {
    return `running (${view.owner.description}, heartbeat ${view.owner.heartbeatAgeSeconds} s ago)`
  }
  return view.state
}

/** A run's state, reading its lease. */
export const runState = (
  run: Run
): Effect.Effect<RunStateView, RunNotFound | StoreError, RunLeases> =>
  Effect.gen(function*() {
    const lease = run.status === "running" && run.execution === "local"
      ? yield* (yield* RunLeases).get(run.id)
      : Option.none<Lease>()
    return runStateOf(run, lease, yield* Clock.currentTimeMillis)
  })
