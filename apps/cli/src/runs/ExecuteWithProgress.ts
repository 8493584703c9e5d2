import { counted } from "@deepnote-rag/core"
import { type ExecutionSummary, failureGroups, processOwner, RunExecutor, showProgress } from "@deepnote-rag/runs"
import type { EngineServices } from "@deepnote-rag/runs"
import { RunStore } from "@deepnote-rag/store"
import type { Layer } from "effect"
import { Console, Effect, Ref } from "effect"
import { CommandFailed, QuestionsFailed, RunIsBusy } from "../Errors.js"
import { StandardStreams } from "../render/StandardStreams.js"
import { watchLlmHealth } from "./LlmWaitNote.js"
import { storeFailed, unknownRun } from "./RunServices.js"
import { noteStoreOutage } from "./StoreWaitNote.js"

/** Fails with `QuestionsFailed` (exit 3) when any of the runs ended with failed questions. */
export const failOnFailedQuestions = (
  runs: ReadonlyArray<{ readonly runId: string; readonly counts: { readonly failed: number; readonly total: number } }>
) => {
  const failing = runs.filter((r) => r.counts.failed > 0)
  if (failing.length === 0) return Effect.void
  return Effect.fail(
    new QuestionsFailed({
      message: failing.map((r) =>
        `run ${r.runId} completed with ${counted(r.counts.failed, "failed question")} of ${r.counts.total}`
      )
        .join("; ")
    })
  )
}

export interface ProgressFlags {
  readonly quiet: boolean
  readonly concurrency: number
  readonly retryFailed: boolean
  /** Wait for another process that executes the run instead of refusing. */
  readonly wait?: boolean
  /** What this process is, for `status` and for the message another process gets ("cli run", "cli resume"). */
  readonly label: string
}

/** Executes a run with a progress display on stderr (bar on a TTY, periodic lines otherwise, nothing with --quiet). */
export const executeWithProgress = (
  runId: string,
  engine: Layer.Layer<EngineServices, unknown>,
  flags: ProgressFlags
) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const executor = yield* RunExecutor
    const run = yield* store.getRun(runId)
    const summary: ExecutionSummary = yield* Effect.scoped(Effect.gen(function*() {
      const llmNote = yield* Ref.make<string | undefined>(undefined)
      const storeNote = yield* Ref.make<string | undefined>(undefined)
      const streams = yield* StandardStreams
      const writeLine = (line: string) =>
        flags.quiet ?
          Effect.void :
          Effect.sync(() => streams.writeStderr(`${streams.stderrIsTty ? "\r\x1b[2K" : ""}${runId}: ${line}\n`))
      const remaining = run.counts.pending + run.counts.running + (flags.retryFailed ? run.counts.failed : 0)
      if (!flags.quiet && remaining > 0) {
        yield* showProgress({
          runId,
          total: run.counts.total,
          alreadyDone: run.counts.done + (flags.retryFailed ? 0 : run.counts.failed),
          tty: streams.stderrIsTty,
          write: (text) => Effect.sync(() => streams.writeStderr(text)),
          note: Effect.map(
            Effect.all([Ref.get(storeNote), Ref.get(llmNote)]),
            (notes) => notes.filter((n) => n !== undefined).join(" · ") || undefined
          )
        })
      }
      return yield* executor.execute(runId, {
        engine,
        concurrency: flags.concurrency,
        retryFailed: flags.retryFailed,
        owner: processOwner(flags.label),
        waitForLease: flags.wait ?? false,
        onEngine: watchLlmHealth(llmNote, writeLine),
        onStoreOutage: noteStoreOutage(storeNote, writeLine)
      })
    }))
    const after = yield* store.getRun(runId)
    if (summary.nothingToDo) {
      yield* Console.log(
        `run ${runId} is already complete: nothing to do (${after.counts.done} done, ${after.counts.failed} failed)`
      )
    } else {
      yield* Console.log(
        `run ${runId} ${summary.status}: ${after.counts.done}/${after.counts.total} done, ${after.counts.failed} failed ` +
          `(this execution: ${summary.executedCalls} LLM calls and retrievals made, ${summary.replayedCalls} replayed from the journal)`
      )
    }
    if (summary.leaseLost) {
      return yield* new CommandFailed({
        message: `run ${runId}: another process took the run over (this one could not renew its lease in time); ` +
          "it continues there"
      })
    }
    if (after.counts.failed > 0 && summary.status === "completed") {
      const groups = yield* failureGroups(runId)
      yield* Console.error(`${counted(after.counts.failed, "question")} failed:`)
      for (const group of groups) {
        yield* Console.error(`  ${group.count} × ${group.reason} (e.g. ${group.examples.join(", ")})`)
      }
      yield* Console.error(`retry them with: deepnote resume ${runId} --retry-failed`)
    }
    return { summary, counts: after.counts }
  }).pipe(
    Effect.catchTags({
      RunBusy: (e) => new RunIsBusy({ message: e.message }),
      RunNotFound: unknownRun,
      EngineFailed: (e) => new CommandFailed({ message: e.message }),
      StoreError: storeFailed
    })
  )
