import { promptSetHash } from "@deepnote/engine"
import { checkResumable, collectionOf, createRunFromRun, enqueueRun, resumeConcurrency } from "@deepnote/runs"
import { type Run, type RunNotFound, RunStore, type StoreError, type SweepNotFound } from "@deepnote/store"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { llmOptions, resolveLlmSettings } from "../engine/LlmOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { executeWithProgress, failOnFailedQuestions } from "../runs/ExecuteWithProgress.js"
import { runEngineLayer } from "../runs/RunEngine.js"
import { queueServices } from "../runs/RunServices.js"
import { tracedRun } from "../telemetry/Traced.js"
import { runTraceOptions } from "../telemetry/TraceOptions.js"
import { boundedInteger, homeOption, maxConcurrency, storeOption } from "./Common.js"
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
      const store = yield* RunStore
      const run = yield* store.getRun(opts.runId)
      if (run.manifest.config.engine === "llm") yield* resolveLlmSettings(opts.llm, undefined)
      if (run.execution === "queue") {
        // a queue run is resumed by queueing what is left again; `deepnote worker` processes execute it
        const { jobs, run: queued } = yield* enqueueRun(run.id, { retryFailed: opts.retryFailed }).pipe(
          Effect.mapError((e) => new CommandFailed({ message: e.message }))
        )
        return yield* Console.log(
          jobs === 0
            ? `run ${run.id}: nothing to queue (${queued.counts.done} done, ${queued.counts.failed} failed, ` +
              `${queued.counts.running} running under workers)`
            : `run ${run.id}: ${jobs} question(s) queued again for the workers (\`deepnote worker\`)`
        )
      }
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
        retryFailed: opts.retryFailed,
        wait: opts.wait,
        label: "cli resume"
      }).pipe(
        tracedRun(opts.tracing, target.id),
        Effect.flatMap((ended) => failOnFailedQuestions([{ runId: target.id, counts: ended.counts }]))
      )
    }).pipe(
      Effect.catchTags({
        RunNotFound: (e) => new CommandFailed({ message: `unknown run id "${e.runId}" (see \`deepnote status\`)` }),
        StoreError: (e) => new CommandFailed({ message: e.message }),
        SweepNotFound: (e) => new CommandFailed({ message: `unknown sweep ${e.sweepId}` })
      }),
      Effect.provide(queueServices(opts.home, opts.store))
    )
).pipe(
  Command.withDescription(
    "Resume an interrupted or crashed run: only unfinished calls go to the engine; a finished run is a no-op."
  )
)
