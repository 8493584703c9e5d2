import { Home } from "@deepnote-rag/core"
import { Worker } from "@effect/platform"
import { NodeWorker } from "@effect/platform-node"
import { Context, Effect, ExecutionStrategy, Exit, Layer, Scope, Stream } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as WorkerThreads from "node:worker_threads"
import {
  IngestFailed,
  type IngestProgress,
  type IngestRequest,
  type IngestUpload,
  InitialMessage
} from "./IngestProtocol.js"

/** Runs upload ingests off the event loop. No spans: each call is inside the job's `IngestJobs.run` span. */
export interface IngestWorkerPoolService {
  /** The progress of one upload's ingest, run in the worker thread. */
  readonly ingest: (request: IngestUpload) => Stream.Stream<IngestProgress, IngestFailed>
}

const here = fileURLToPath(import.meta.url)

/**
 * The worker's script: the compiled `IngestWorker.js` beside this module. Run from the TypeScript sources (the test
 * runner), that is the build output of this package, so tests that upload documents need `tsc -b` first.
 */
export const ingestWorkerScript = here.endsWith(".ts")
  ? Path.resolve(Path.dirname(here), "../../dist/src/Collections/IngestWorker.js")
  : Path.join(Path.dirname(here), "IngestWorker.js")

/**
 * The thread's Node flags: this process's, without the `@deepnote-rag/source` export condition (a test runner started
 * from a package directory passes it, and it would make the compiled worker import the workspace's TypeScript sources).
 */
const workerExecArgv = process.execArgv.filter((arg, i, all) =>
  arg !== "--conditions=@deepnote-rag/source" && arg !== "-C=@deepnote-rag/source" &&
  !((arg === "--conditions" || arg === "-C") && all[i + 1] === "@deepnote-rag/source") &&
  !(arg === "@deepnote-rag/source" && (all[i - 1] === "--conditions" || all[i - 1] === "-C"))
)

export interface IngestWorkerOptions {
  readonly home: string
  /** Uploads one worker indexes at once (they interleave batch by batch). */
  readonly concurrency: number
}

type Generation = { readonly pool: Worker.SerializedWorkerPool<IngestRequest>; readonly scope: Scope.CloseableScope }

export class IngestWorkerPool extends Context.Tag("@deepnote-rag/server/IngestWorkerPool")<
  IngestWorkerPool,
  IngestWorkerPoolService
>() {
  /**
   * Why a thread, not yields on the event loop (2-core machine, three 32 MB uploads of 55,420 documents at once):
   * indexing on the main thread in slices of 50 documents (one transaction each) with a `setImmediate` yield between
   * them still delayed a 10 ms timer by 32–51 ms p99 and up to 106–274 ms, slices of 200 by 54–277 ms p99
   * (`benchmarks/server/ingest-slices.mjs`, no HTTP at all), and indexing took up to 30 % longer; and some steps cannot
   * be sliced: `JSON.parse` of a 32 MB array (166 ms), the first write's `PRAGMA quick_check` (~0.4 s per 100k
   * passages). With this worker (at nice 10, see `IngestWorker`), `/readyz` answers in 10–46 ms p99 at load averages
   * up to 5.5, against 9 s before (`benchmarks/server/uploads.mjs`).
   *
   * One worker thread, started at the first upload (a server that never receives one never pays for it) and again
   * after it dies. One thread because the work is CPU-bound and SQLite takes one writer per collection: on a 2-core
   * machine the event loop keeps the other core.
   */
  static readonly make = (options: IngestWorkerOptions): Effect.Effect<IngestWorkerPoolService, never, Scope.Scope> =>
    Effect.gen(function*() {
      const parent = yield* Effect.scope
      const lock = yield* Effect.makeSemaphore(1)
      let current: Generation | undefined
      const start = Effect.gen(function*() {
        const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
        const pool = yield* Worker.makePoolSerialized<IngestRequest>({
          size: 1,
          concurrency: options.concurrency,
          initialMessage: () => new InitialMessage({ home: options.home })
        }).pipe(
          Scope.extend(scope),
          Effect.provide(
            NodeWorker.layer(() => new WorkerThreads.Worker(ingestWorkerScript, { execArgv: workerExecArgv }))
          ),
          Effect.onError(() => Scope.close(scope, Exit.void))
        )
        return { pool, scope }
      })
      const acquire = lock.withPermits(1)(
        Effect.suspend(() => current === undefined ? Effect.tap(start, (g) => (current = g)) : Effect.succeed(current))
      )
      const discard = (generation: Generation) =>
        lock.withPermits(1)(Effect.suspend(() => {
          if (current !== generation) return Effect.void
          current = undefined
          return Scope.close(generation.scope, Exit.void)
        }))
      const workerFailure = (e: { readonly message: string }) =>
        new IngestFailed({ message: `the ingest worker failed: ${e.message}` })
      return IngestWorkerPool.of({
        ingest: (request) =>
          Stream.unwrap(Effect.map(acquire, (generation) =>
            generation.pool.execute(request).pipe(
              Stream.catchTags({
                WorkerError: (e) =>
                  Stream.fromEffect(
                    Effect.zipRight(
                      e.reason === "encode" || e.reason === "decode" ? Effect.void : discard(generation),
                      Effect.fail(workerFailure(e))
                    )
                  ),
                ParseError: (e) => Stream.fail(workerFailure(e))
              })
            ))).pipe(
              Stream.catchTag("WorkerError", (e) => Stream.fail(workerFailure(e)))
            )
      })
    })

  /** The live pool over `Home`, one worker, four uploads at once. */
  static readonly layer = Layer.scoped(
    IngestWorkerPool,
    Effect.flatMap(Home, (home) => IngestWorkerPool.make({ home: home.root, concurrency: 4 }))
  )
}
