import { counted } from "@deepnote-rag/core"
import type { LlmSettings } from "@deepnote-rag/llm"
import { makeWorkerEngines, runWorker } from "@deepnote-rag/runs"
import { Effect, Layer } from "effect"
import { yieldingToIo } from "../Engine/EventLoopScheduler.js"
import { ServerEngine } from "../Engine/ServerEngine.js"
import { ServerSettings } from "../ServerSettings.js"

/**
 * The queue workers a server hosts (`deepnote serve --workers N`, default on): they execute any run's questions —
 * created through this replica, another one, or `deepnote run --enqueue` — with the server's engine and collections.
 * A replica with `--workers 0` only answers the API. On shutdown the workers stop taking questions; those in flight
 * reach their next call (journaled) and go back to the queue for the next worker.
 */
export const serverWorkersLayer = <E>(llmSettings: Layer.Layer<LlmSettings, E>) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const { limits, meili, workers } = yield* ServerSettings
    if (workers === 0) return
    const engine = yield* ServerEngine
    const engines = yield* makeWorkerEngines(llmSettings, { shared: engine, meili })
    yield* Effect.logInfo(`queue workers: ${counted(workers, "question")} at a time`)
    yield* runWorker({
      concurrency: workers,
      ...engines,
      drainTimeout: limits.drainTimeout,
      storeOutageTolerance: limits.storeOutageTolerance,
      // questions yield to the event loop (not just to other fibers): a CPU-bound engine never starves HTTP requests
      aroundQuestion: yieldingToIo
    }).pipe(
      Effect.tap((summary) => Effect.logInfo(`queue workers stopped: ${summary.done} done, ${summary.failed} failed`)),
      Effect.forkScoped
    )
  }))
