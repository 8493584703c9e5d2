import type { ItemCounts, LeaseOwner } from "@deepnote-rag/store"
import type { Context, Duration, Effect, Layer, Scope } from "effect"
import type { EngineServices } from "./EngineServices.js"
import type { StoreOutageChange } from "./StoreOutage.js"

/** How `RunExecutor.execute` executes a run. */
export interface ExecuteOptions {
  /** The engine the questions are answered with (built once per execution, shared by every question). */
  readonly engine: Layer.Layer<EngineServices, unknown>
  /** Questions in flight at once: each is its own fiber; the next starts as soon as one finishes. */
  readonly concurrency: number
  /** Also run items that failed before. Default false. */
  readonly retryFailed?: boolean
  /** After a stop request (SIGINT/SIGTERM → interruption), how long in-flight questions may finish. Default 10 s. */
  readonly drainTimeout?: Duration.DurationInput
  /** Who executes: the run's lease is taken in its name (one owner per run). */
  readonly owner: LeaseOwner
  /** The lease's lifetime without a heartbeat (then another process may take the run over). Default 30 s. */
  readonly leaseTtl?: Duration.DurationInput
  /** When another live process holds the run: wait for it instead of failing with `RunBusy`. Default false. */
  readonly waitForLease?: boolean
  /**
   * Called once the engine is built, inside the execution's scope: a progress display reads services the engine
   * carries beside its roles (the LLM client's health). Its fibers end with the execution.
   */
  readonly onEngine?: (engine: Context.Context<EngineServices>) => Effect.Effect<void, never, Scope.Scope>
  /** Told when the store becomes unreachable and when it is back (a progress display's note). */
  readonly onStoreOutage?: (change: StoreOutageChange) => Effect.Effect<void>
}

/** The executor's own settings (`RunExecutor.make`, `layerConfig`). */
export interface RunExecutorSettings {
  /**
   * How long questions wait for a store that cannot be reached (a Postgres restart or failover) before the run fails;
   * each waiting question is then done again from its journal. Default 5 minutes.
   */
  readonly storeOutageTolerance?: Duration.DurationInput
}

/** What an execution of a run did. */
export interface ExecutionSummary {
  readonly runId: string
  readonly status: "completed" | "interrupted" | "failed"
  /** Items finished by this execution. */
  readonly done: number
  readonly failed: number
  /** Engine and retrieval calls answered from the journal, and calls made. */
  readonly replayedCalls: number
  readonly executedCalls: number
  /** True when the run had nothing left to do. */
  readonly nothingToDo: boolean
  /** The run's items after this execution (all of them, not only this execution's). */
  readonly counts: ItemCounts
  /** The lease was taken over by another process (this one was too slow to renew it): it stopped early. */
  readonly leaseLost: boolean
}
