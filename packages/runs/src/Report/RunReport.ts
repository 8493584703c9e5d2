import { passageBudget, profileOf } from "@deepnote-rag/core"
import { makeReportAccumulator, type ReportItem, type ReportOptions } from "@deepnote-rag/eval"
import { Journal, RunStore } from "@deepnote-rag/store"
import { Effect, Stream } from "effect"
import { describeEngine } from "./EngineFacts.js"
import { reportPageSize } from "./ReportPageSize.js"

/**
 * The metric report of a run from what the store holds: finished items are scored, pending ones only counted, so it
 * works on a run that is still going or was interrupted ("partial: n of N"). Recall is stated with the run's passage
 * budget. The items are read as a stream, a page at a time, into a streaming accumulator that keeps a few numbers per
 * question, so memory does not follow the run's size (benchmarks/memory).
 */
export const runReport = (runId: string, options: ReportOptions = {}) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const journal = yield* Journal
    const run = yield* store.getRun(runId)
    const usage = new Map((yield* journal.totals(runId)).map((t) => [t.itemId, t]))
    const engine = describeEngine(run.manifest)
    const config = run.manifest.config
    const accumulator = makeReportAccumulator({
      budget: passageBudget(config, profileOf(config.profile).defaults),
      title: `run ${run.id} (${run.manifest.config.profile}, ${run.status})${
        engine === undefined ? "" : ` · ${engine}`
      }`,
      total: run.counts.total,
      ...options
    })
    const items = store.results(runId, { statuses: ["done", "failed", "pending", "running"], limit: reportPageSize })
    yield* Stream.runForEach(items, (record) =>
      Effect.sync(() => {
        const tokens = usage.get(record.itemId)
        const item: ReportItem = {
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
        accumulator.add(item)
      }))
    return accumulator.finish()
  })
