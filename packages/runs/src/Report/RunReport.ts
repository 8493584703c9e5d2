import { passageBudget, profileOf } from "@deepnote/core"
import { buildReport, type ReportItem, type ReportOptions } from "@deepnote/eval"
import { Journal, RunStore } from "@deepnote/store"
import { Chunk, Effect, Stream } from "effect"
import { describeEngine } from "./EngineFacts.js"

/**
 * The metric report of a run from what the store holds: finished items are scored, pending ones only counted, so it
 * works on a run that is still going or was interrupted ("partial: n of N"). Recall is stated with the run's passage
 * budget.
 */
export const runReport = (runId: string, options: ReportOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const journal = yield* Journal
    const run = yield* store.getRun(runId)
    const records = Chunk.toReadonlyArray(
      yield* Stream.runCollect(store.results(runId, { statuses: ["done", "failed", "pending", "running"] }))
    )
    const usage = new Map((yield* journal.totals(runId)).map((t) => [t.itemId, t]))
    const items: Array<ReportItem> = records.map((record) => {
      const tokens = usage.get(record.itemId)
      return {
        question: record.question,
        outcome: record.status === "done" && record.result !== undefined
          ? { _tag: "done", result: record.result }
          : record.status === "failed"
          ? { _tag: "failed", error: record.error ?? { tag: "Unknown", message: "failed" } }
          : { _tag: "pending" },
        usage: tokens === undefined || tokens.promptTokens + tokens.completionTokens === 0
          ? undefined
          : { promptTokens: tokens.promptTokens, completionTokens: tokens.completionTokens }
      }
    })
    const engine = describeEngine(run.manifest)
    const config = run.manifest.config
    return buildReport(items, {
      budget: passageBudget(config, profileOf(config.profile).defaults),
      title: `run ${run.id} (${run.manifest.config.profile}, ${run.status})${
        engine === undefined ? "" : ` · ${engine}`
      }`,
      total: run.counts.total,
      ...options
    })
  })
