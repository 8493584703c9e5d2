import { type ExecutionSummary, RunExecutor, showProgress } from "@deepnote/runs"
import type { EngineServices } from "@deepnote/runs"
import { RunStore } from "@deepnote/store"
import type { Layer } from "effect"
import { Console, Effect } from "effect"
import { CommandFailed } from "../Errors.js"

export interface ProgressFlags {
  readonly quiet: boolean
  readonly concurrency: number
  readonly retryFailed: boolean
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
      const remaining = run.counts.pending + run.counts.running + (flags.retryFailed ? run.counts.failed : 0)
      if (!flags.quiet && remaining > 0) {
        yield* showProgress({
          runId,
          total: run.counts.total,
          alreadyDone: run.counts.done + (flags.retryFailed ? 0 : run.counts.failed),
          tty: process.stderr.isTTY === true,
          write: (text) => Effect.sync(() => void process.stderr.write(text))
        })
      }
      return yield* executor.execute(runId, { engine, concurrency: flags.concurrency, retryFailed: flags.retryFailed })
    }))
    const after = yield* store.getRun(runId)
    if (summary.nothingToDo) {
      yield* Console.log(
        `run ${runId} is already complete: nothing to do (${after.counts.done} done, ${after.counts.failed} failed)`
      )
    } else {
      yield* Console.log(
        `run ${runId} ${summary.status}: ${after.counts.done}/${after.counts.total} done, ${after.counts.failed} failed ` +
          `(this execution: ${summary.executedCalls} calls made, ${summary.replayedCalls} replayed from the journal)`
      )
    }
    return summary
  }).pipe(
    Effect.catchTags({
      RunNotFound: (e) => new CommandFailed({ message: `unknown run id "${e.runId}" (see \`deepnote status\`)` }),
      EngineFailed: (e) => new CommandFailed({ message: e.message }),
      StoreError: (e) => new CommandFailed({ message: e.message })
    })
  )
