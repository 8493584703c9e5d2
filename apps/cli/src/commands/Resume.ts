import { recordedLlmServers } from "@deepnote-rag/runs"
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { llmOptions, resolveLlmSettings } from "../engine/LlmOptions.js"
import { CommandFailed } from "../Errors.js"
import { failOnFailedQuestions } from "../runs/ExecuteWithProgress.js"
import { resumeRun } from "../runs/ResumeRun.js"
import { resumeSweep } from "../runs/ResumeSweep.js"
import { runOrSweep } from "../runs/RunOrSweep.js"
import { queueServices, storeFailed, unknownRun } from "../runs/RunServices.js"
import { runTraceOptions } from "../telemetry/TraceOptions.js"
import { boundedInteger, homeOption, maxConcurrency, storeOption } from "./Common.js"
import { defaultConcurrency, quietOption } from "./RunCommand.js"

export const runIdArg = Args.text({ name: "run-id" }).pipe(Args.withDescription("a run id (see `deepnote status`)"))

/**
 * `deepnote resume ID`: continue a run exactly where it stopped (finished calls are replayed, not re-sent), or a sweep:
 * its unfinished cells resumed and the cells an interruption left uncreated created and run.
 */
export const resumeCommand = Command.make(
  "resume",
  {
    id: Args.text({ name: "id" }).pipe(
      Args.withDescription("a run id, or a sweep id (every cell not completed; see `deepnote status`)")
    ),
    concurrency: boundedInteger("concurrency", 1, maxConcurrency).pipe(
      Options.withDescription(
        `questions in flight at once (default: what the run was started with, else ${defaultConcurrency})`
      ),
      Options.optional
    ),
    quiet: quietOption,
    retryFailed: Options.boolean("retry-failed").pipe(Options.withDescription("also run the questions that failed")),
    forceNewRun: Options.boolean("force-new-run").pipe(
      Options.withDescription(
        "when the prompts or code changed, start a new run with the same settings and questions instead of refusing"
      )
    ),
    wait: Options.boolean("wait").pipe(
      Options.withDescription(
        "when another process is executing the run, wait for it (and continue whatever it leaves) instead of refusing"
      )
    ),
    home: homeOption,
    store: storeOption,
    llm: llmOptions,
    tracing: runTraceOptions
  },
  (opts) =>
    Effect.gen(function*() {
      const target = yield* runOrSweep(opts.id)
      if (target._tag === "sweep") return yield* failOnFailedQuestions(yield* resumeSweep(target.state, opts))
      if (target.run.manifest.config.engine === "llm") {
        yield* resolveLlmSettings(opts.llm, undefined, "batch", undefined, recordedLlmServers(target.run))
      }
      const ended = yield* resumeRun(target.run, opts)
      yield* failOnFailedQuestions(ended === undefined ? [] : [ended])
    }).pipe(
      Effect.catchTags({
        RunNotFound: unknownRun,
        StoreError: storeFailed,
        SweepNotFound: (e) => new CommandFailed({ message: `unknown sweep ${e.sweepId}` })
      }),
      Effect.provide(queueServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Resume an interrupted or crashed run (only unfinished calls go to the engine; a finished run is a no-op), or a " +
      "sweep (its unfinished cells, and the cells an interruption left uncreated)."
  )
)
