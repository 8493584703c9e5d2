import { promptSetHash } from "@deepnote/engine"
import { checkResumable, collectionOf, createRunFromRun, resumeConcurrency } from "@deepnote/runs"
import { type Run, type RunNotFound, RunStore, type StoreError, type SweepNotFound } from "@deepnote/store"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { llmOptions, resolveLlmSettings } from "../engine/LlmOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { executeWithProgress } from "../runs/ExecuteWithProgress.js"
import { runEngineLayer } from "../runs/RunEngine.js"
import { runServices } from "../runs/RunServices.js"
import { tracedRun } from "../telemetry/Traced.js"
import { runTraceOptions } from "../telemetry/TraceOptions.js"
import { boundedInteger, homeOption, maxConcurrency } from "./Common.js"
import { defaultConcurrency, quietOption } from "./RunCommand.js"

export const runIdArg = Args.text({ name: "run-id" }).pipe(Args.withDescription("a run id (see `deepnote status`)"))

/** `deepnote resume RUN_ID`: continue a run exactly where it stopped; finished calls are replayed, not re-sent. */
export const resumeCommand = Command.make(
  "resume",
  {
    runId: runIdArg,
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
    home: homeOption,
    llm: llmOptions,
    tracing: runTraceOptions
  },
  (opts) =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const run = yield* store.getRun(opts.runId)
      if (run.manifest.config.engine === "llm") yield* resolveLlmSettings(opts.llm, undefined)
      const current = { promptSetHash: promptSetHash(run.manifest.config) }
      const target = yield* checkResumable(run, current).pipe(
        Effect.as(run),
        Effect.catchTag(
          "ResumeRefused",
          (refused): Effect.Effect<Run, UsageError | RunNotFound | StoreError | SweepNotFound, RunStore> =>
            opts.forceNewRun
              ? createRunFromRun(run, current).pipe(
                Effect.tap((fresh) =>
                  Console.log(`started new run ${fresh.id} from ${run.id} (${refused.message.split(":")[0]})`)
                )
              )
              : Effect.fail(new UsageError({ message: refused.message }))
        )
      )
      const engine = runEngineLayer(target.manifest.config, collectionOf(target), opts.llm, undefined, opts.home)
      yield* executeWithProgress(target.id, engine, {
        quiet: opts.quiet,
        concurrency: resumeConcurrency(target, Option.getOrUndefined(opts.concurrency), defaultConcurrency),
        retryFailed: opts.retryFailed
      }).pipe(
        tracedRun(opts.tracing, target.id)
      )
    }).pipe(
      Effect.catchTags({
        RunNotFound: (e) => new CommandFailed({ message: `unknown run id "${e.runId}" (see \`deepnote status\`)` }),
        StoreError: (e) => new CommandFailed({ message: e.message }),
        SweepNotFound: (e) => new CommandFailed({ message: `unknown sweep ${e.sweepId}` })
      }),
      Effect.provide(runServices(opts.home))
    )
).pipe(
  Command.withDescription(
    "Resume an interrupted or crashed run: only unfinished calls go to the engine; a finished run is a no-op."
  )
)
