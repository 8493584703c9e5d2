import type { Run } from "@deepnote-rag/store"
import type { Duration, Effect, Layer, Option } from "effect"
import type { EngineServices } from "../Executor/EngineServices.js"
import type { StoreOutageChange } from "../Executor/StoreOutage.js"

/** How a queue worker (`runWorker`) takes and executes question jobs. */
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

/** What a queue worker did, when it ends. */
export interface WorkerSummary extends WorkerTally {
  /** Why the worker ended: no job for `idleExit`, or a stop request (SIGINT/SIGTERM). */
  readonly reason: "idle" | "stopped"
}

/** The jobs a worker has finished so far, by outcome, and the LLM calls they made. */
export interface WorkerTally {
  readonly done: number
  readonly failed: number
  /** Jobs with nothing to do: a question already done or held by another job, a cancelled run. */
  readonly skipped: number
  /** Jobs given back because this process cannot serve their run. */
  readonly refused: number
  readonly executedCalls: number
  readonly replayedCalls: number
}
