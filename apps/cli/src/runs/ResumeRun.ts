import { counted } from "@deepnote-rag/core"
import {
  checkResumable,
  collectionOf,
  createRunFromRun,
  enqueueRun,
  meiliTargetOf,
  recordedLlmServers,
  resumeConcurrency,
  runPromptSetHash
} from "@deepnote-rag/runs"
import { type Run, type RunNotFound, RunStore, type StoreError, type SweepNotFound } from "@deepnote-rag/store"
import { Console, Effect, Option } from "effect"
import { writeAndReport } from "../align/AlignOutputLines.js"
import { defaultConcurrency } from "../commands/RunCommand.js"
import type { LlmOptionValues } from "../engine/LlmOptions.js"
import { resolveMeiliSettings } from "../engine/MeiliOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"
import { tracedRun } from "../telemetry/Traced.js"
import type { TraceFlags } from "../telemetry/TraceOptions.js"
import { executeWithProgress } from "./ExecuteWithProgress.js"
import { runEngineLayer } from "./RunEngine.js"

/** The flags of `deepnote resume` that say how a run continues. */
export interface ResumeFlags {
  readonly concurrency: Option.Option<number>
  readonly quiet: boolean
  readonly retryFailed: boolean
  readonly forceNewRun: boolean
  readonly wait: boolean
  readonly home: Option.Option<string>
  readonly llm: LlmOptionValues
  readonly tracing: TraceFlags
}

/** How a resumed run ended when this process executed it (`undefined`: queued for workers instead). */
export type Resumed = { readonly runId: string; readonly counts: { readonly failed: number; readonly total: number } }

/**
 * Continues one run exactly where it stopped: a queue run's unfinished questions are queued again for workers; a
 * local run is executed here (finished calls replayed, not re-sent), or — prompts or code changed — refused unless
 * `--force-new-run` starts a new run with its settings and questions.
 */
export const resumeRun = (run: Run, flags: ResumeFlags) =>
  Effect.gen(function*() {
    if (run.execution === "queue") {
      const { jobs, run: queued } = yield* enqueueRun(run.id, { retryFailed: flags.retryFailed }).pipe(
        Effect.mapError((e) => new CommandFailed({ message: e.message }))
      )
      yield* Console.log(
        jobs === 0
          ? `run ${run.id}: nothing to queue (${queued.counts.done} done, ${queued.counts.failed} failed, ` +
            `${queued.counts.running} running under workers)`
          : `run ${run.id}: ${counted(jobs, "question")} queued again for the workers (\`deepnote worker\`)`
      )
      return undefined
    }
    const current = { promptSetHash: runPromptSetHash(run) }
    const target = yield* checkResumable(run, current).pipe(
      Effect.as(run),
      Effect.catchTag(
        "ResumeRefused",
        (refused): Effect.Effect<Run, UsageError | RunNotFound | StoreError | SweepNotFound, RunStore> =>
          flags.forceNewRun
            ? createRunFromRun(run, current).pipe(
              Effect.tap((fresh) =>
                Console.log(`started new run ${fresh.id} from ${run.id} (${refused.message.split(":")[0]})`)
              )
            )
            : Effect.fail(new UsageError({ message: refused.message }))
      )
    )
    // a run over a Meilisearch index continues on the index it recorded (the key from DEEPNOTE_MEILI_API_KEY)
    const recorded = meiliTargetOf(target)
    const meili = Option.isNone(recorded) ? undefined : {
      ...(yield* resolveMeiliSettings({ url: Option.none(), index: Option.none(), apiKey: Option.none() })).options,
      host: recorded.value.host,
      index: recorded.value.index
    }
    const engine = runEngineLayer(
      target.manifest.config,
      collectionOf(target),
      flags.llm,
      undefined,
      flags.home,
      meili,
      recordedLlmServers(target)
    )
    const ended = yield* executeWithProgress(target.id, engine, {
      quiet: flags.quiet,
      concurrency: resumeConcurrency(target, Option.getOrUndefined(flags.concurrency), defaultConcurrency),
      retryFailed: flags.retryFailed,
      wait: flags.wait,
      label: "cli resume"
    }).pipe(tracedRun(flags.tracing, target.id))
    // an align run writes its pairs where `align-data` was told to, once it completes
    if (target.manifest.align !== undefined && ended.summary.status === "completed") yield* writeAndReport(target.id)
    return { runId: target.id, counts: ended.counts } satisfies Resumed
  })
