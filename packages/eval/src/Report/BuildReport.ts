import type { PipelineResult, Question, TaskType } from "@deepnote/core"
import type { QaPair } from "../Metrics/Asqa.js"
import { bootstrapMeanCi, type BootstrapOptions, mean } from "../Metrics/Bootstrap.js"
import { defaultMetrics, type MetricName, metrics, type Scorable, scorableOf } from "../Metrics/Metric.js"
import { recallInitFinal } from "../Metrics/Recall.js"
import { type ItemScores, type MetricSummary, Report } from "./Report.js"

/** What happened to one question. `pending` items count towards the total only. */
export type Outcome =
  | { readonly _tag: "done"; readonly result: PipelineResult }
  | { readonly _tag: "failed"; readonly error: { readonly tag: string; readonly message: string } }
  | { readonly _tag: "pending" }

export interface ReportItem {
  readonly question: Question
  readonly outcome: Outcome
  /** Token usage of the question (e.g. from `Journal.totals`). */
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number } | undefined
  /** ASQA qa_pairs (from `LoadedDataset.qaPairs`). */
  readonly qaPairs?: ReadonlyArray<QaPair> | undefined
}

export interface ReportOptions {
  readonly title?: string | undefined
  /** Default: the paper's metrics for the tasks present (multihop: acc, em, f1; yesno: strategyqa-acc; longform: str-em, str-hit). */
  readonly metrics?: ReadonlyArray<MetricName> | undefined
  /** Task of questions that carry none. Default `multihop`. */
  readonly task?: TaskType | undefined
  /** Items in the run, when `items` holds only some of them. Default `items.length`. */
  readonly total?: number | undefined
  readonly bootstrap?: BootstrapOptions | undefined
  /** Include per-question scores. */
  readonly perItem?: boolean | undefined
  /** Score failed questions as 0 instead of leaving them out of the metrics. */
  readonly scoreFailuresAsZero?: boolean | undefined
  /** The run's passage budget (`passageBudget` of its config), stated with the recall; absent: none. */
  readonly budget?: number | undefined
}

const pct = (x: number) => Math.round(x * 10000) / 100
const round2 = (x: number) => Math.round(x * 100) / 100

/** Builds a report from question outcomes; works on partial runs (only finished items are scored). */
export const buildReport = (items: ReadonlyArray<ReportItem>, options: ReportOptions = {}): Report => {
  const taskOf = (q: Question) => q.task ?? options.task ?? "multihop"
  const names = options.metrics ?? [...new Set(items.flatMap((i) => defaultMetrics(taskOf(i.question))))]
  const done = items.flatMap((i) => (i.outcome._tag === "done" ? [{ ...i, result: i.outcome.result }] : []))
  const failed = items.flatMap((i) => (i.outcome._tag === "failed" ? [{ id: i.question.id, ...i.outcome.error }] : []))
  const scorable = (item: ReportItem): Scorable =>
    scorableOf(item.question, item.outcome._tag === "done" ? item.outcome.result.answer.text : "", item.qaPairs)
  const scored = items.filter((i) =>
    i.outcome._tag === "done" || (options.scoreFailuresAsZero && i.outcome._tag === "failed")
  )
  const summaries: Array<MetricSummary> = names.map((name) => {
    const metric = metrics[name]
    const scores = scored.map(scorable).filter(metric.applies).map(metric.score)
    const ci = bootstrapMeanCi(scores, options.bootstrap)
    return {
      name,
      description: metric.description,
      n: scores.length,
      mean: pct(mean(scores)),
      ci: ci === undefined ? undefined : { ...ci, low: pct(ci.low), high: pct(ci.high) }
    }
  })
  const recalls = done.map((i) => recallInitFinal(i.question, i.result)).filter((r) => r.final !== undefined)
  const withUsage = done.flatMap((i) => (i.usage === undefined ? [] : [i.usage]))
  const withSubqueries = done.flatMap((i) => i.result.counters.subqueries ?? [])
  const stopReasons: Record<string, number> = {}
  for (const i of done) stopReasons[i.result.stopReason] = (stopReasons[i.result.stopReason] ?? 0) + 1
  const total = options.total ?? items.length
  const finished = done.length + failed.length
  return new Report({
    title: options.title,
    partial: finished < total,
    counts: { total, finished, done: done.length, failed: failed.length },
    metrics: summaries,
    cost: {
      llmCalls: round2(mean(done.map((i) => i.result.counters.llm.total))),
      retrievals: round2(mean(done.map((i) => i.result.counters.retrievals))),
      passages: round2(mean(done.map((i) => i.result.counters.uniquePassages))),
      steps: round2(mean(done.map((i) => i.result.counters.steps))),
      wallMs: round2(mean(done.map((i) => i.result.elapsedMs))),
      promptTokens: withUsage.length === 0 ? undefined : round2(mean(withUsage.map((u) => u.promptTokens))),
      completionTokens: withUsage.length === 0 ? undefined : round2(mean(withUsage.map((u) => u.completionTokens))),
      ...(withSubqueries.length === 0 ? {} : {
        subqueries: {
          retrieved: round2(mean(withSubqueries.map((s) => s.retrieved))),
          parametric: round2(mean(withSubqueries.map((s) => s.parametric)))
        }
      })
    },
    stopReasons,
    recall: {
      n: recalls.length,
      init: recalls.length === 0 ? undefined : pct(mean(recalls.map((r) => r.init ?? 0))),
      final: recalls.length === 0 ? undefined : pct(mean(recalls.map((r) => r.final ?? 0))),
      allGold: recalls.length === 0 ? undefined : pct(mean(recalls.map((r) => (r.final === 1 ? 1 : 0))))
    },
    budget: options.budget,
    failures: failed,
    items: options.perItem ? items.map((i) => itemScores(i, scorable(i), names)) : undefined
  })
}

const itemScores = (item: ReportItem, s: Scorable, names: ReadonlyArray<MetricName>): ItemScores => {
  const scores: Record<string, number> = {}
  const outcome = item.outcome
  if (outcome._tag === "done") {
    for (const name of names) if (metrics[name].applies(s)) scores[name] = metrics[name].score(s)
    const recall = recallInitFinal(item.question, outcome.result)
    return {
      id: item.question.id,
      status: "done",
      prediction: outcome.result.answer.text,
      golds: s.golds,
      scores,
      stopReason: outcome.result.stopReason,
      llmCalls: outcome.result.counters.llm.total,
      retrievals: outcome.result.counters.retrievals,
      passages: outcome.result.counters.uniquePassages,
      recallInit: recall.init,
      recallFinal: recall.final
    }
  }
  return {
    id: item.question.id,
    status: outcome._tag,
    golds: s.golds,
    scores,
    error: outcome._tag === "failed" ? `${outcome.error.tag}: ${outcome.error.message}` : undefined
  }
}
