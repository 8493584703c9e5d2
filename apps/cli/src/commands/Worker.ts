import { makeWorkerEngines, runWorker, storeOutageToleranceConfig } from "@deepnote-rag/runs"
import { Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Option } from "effect"
import { llmOptions, llmSettingsLayer } from "../engine/LlmOptions.js"
import { meiliOptions, resolveMeiliSettings } from "../engine/MeiliOptions.js"
import { queueServices } from "../runs/RunServices.js"
import { boundedInteger, homeOption, maxConcurrency, storeOption } from "./Common.js"
import { defaultConcurrency, quietOption } from "./RunCommand.js"

/**
 * `deepnote worker`: takes question jobs of any queued run or sweep from the store's work queue and executes them,
 * `--concurrency` at a time, with this machine's collections and LLM servers. Exits 0 after `--idle-exit` seconds
 * without work; SIGINT/SIGTERM stop taking jobs, let the questions in flight reach their next call (journaled), give
 * their jobs back to the queue and exit 130.
 */
export const workerCommand = Command.make(
  "worker",
  {
    store: storeOption,
    concurrency: boundedInteger("concurrency", 1, maxConcurrency).pipe(
      Options.withDescription(`questions this worker executes at once (default ${defaultConcurrency})`),
      Options.withDefault(defaultConcurrency)
    ),
    idleExit: boundedInteger("idle-exit", 1, 7 * 24 * 3600).pipe(
      Options.optional,
      Options.withDescription(
        "exit 0 after this many seconds without a job (default: run until stopped); keep it above the queue's lock " +
          "expiration, or a dead worker's jobs may outlive the last worker"
      )
    ),
    maxAttempts: boundedInteger("max-attempts", 1, 100).pipe(
      Options.withDefault(3),
      Options.withDescription("a question that stopped its worker this many times (crash, OOM) is failed (default 3)")
    ),
    quiet: quietOption,
    home: homeOption,
    llm: llmOptions,
    meili: meiliOptions
  },
  (opts) =>
    Effect.gen(function*() {
      // runs with `retriever: meilisearch` are taken only when they search this index (flags, else DEEPNOTE_MEILI_*)
      const { options: meili } = yield* resolveMeiliSettings(opts.meili)
      const engines = yield* makeWorkerEngines(llmSettingsLayer(opts.llm, undefined), { meili })
      if (!opts.quiet) {
        yield* Console.error(
          `worker: taking questions from the queue, ${opts.concurrency} at a time${
            Option.isSome(opts.idleExit) ? ` (exits after ${opts.idleExit.value} s without work)` : ""
          }`
        )
      }
      const summary = yield* runWorker({
        concurrency: opts.concurrency,
        // read (and checked, exit 2) with the run services too
        storeOutageTolerance: yield* storeOutageToleranceConfig,
        ...engines,
        maxAttempts: opts.maxAttempts,
        ...(Option.isSome(opts.idleExit) ? { idleExit: Duration.seconds(opts.idleExit.value) } : {})
      })
      if (!opts.quiet) {
        yield* Console.error(
          `worker: ${
            summary.reason === "idle" ? "no work left" : "stopped"
          }: ${summary.done} done, ${summary.failed} ` +
            `failed, ${summary.skipped} skipped, ${summary.refused} given back (${summary.executedCalls} LLM calls and retrievals made, ` +
            `${summary.replayedCalls} replayed)`
        )
      }
    }).pipe(
      Effect.scoped,
      Effect.provide(queueServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Execute queued questions of any run (`deepnote run --enqueue`, the HTTP app's runs) from the store's work queue."
  )
)
