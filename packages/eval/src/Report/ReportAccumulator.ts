import { type Question, TaskType } from "@deepnote-rag/core"
import { bootstrapMeanCi } from "../Metrics/Bootstrap.js"
import { defaultMetrics, type MetricName, metrics, type Scorable, scorableOf } from "../Metrics/Metric.js"
import { recallInitFinal } from "../Metrics/Recall.js"
import { type ItemScores, type MetricSummary, Report } from "./Report.js"
import type { ReportItem, ReportOptions } from "./ReportItem.js"
import { RunningMean, ScoreColumn } from "./ScoreColumn.js"

/** Builds a report one question at a time: `add` each outcome in order, then `finish` once. */
export interface ReportAccumulator {
  readonly add: (item: ReportItem) => void
  readonly finish: () => Report
}

const pct = (x: number) => Math.round(x * 10000) / 100
const round2 = (x: number) => Math.round(x * 100) / 100

/** Every metric some task reports by default: the ones a question may need before the run's tasks are all known. */
const anyDefault: ReadonlyArray<MetricName> = [...new Set(TaskType.literals.flatMap(defaultMetrics))]

/**
 * Streaming aggregation of a report: what it keeps per question is a score per metric (a `Float64Array` column each,
 * the bootstrap's input) and, with `perItem`, the question's `ItemScores` row — never the results themselves, so memory
 * does not follow the size of the traces. The report equals one built from the whole list at once: sums are taken in
 * the same order, and every metric a later task could add is scored from the first question on (with the default
 * metrics, the set depends on the tasks present).
 */
export const makeReportAccumulator = (options: ReportOptions = {}): ReportAccumulator => {
  const taskOf = (q: Question) => q.task ?? options.task ?? "multihop"
  const candidates = options.metrics ?? anyDefault
  const named = new Set<MetricName>(options.metrics ?? [])
  const columns = new Map(candidates.map((name) => [name, new ScoreColumn()]))
  const cost = {
    llmCalls: new RunningMean(),
    retrievals: new RunningMean(),
    passages: new RunningMean(),
    steps: new RunningMean(),
    wallMs: new RunningMean(),
    promptTokens: new RunningMean(),
    completionTokens: new RunningMean(),
    retrieved: new RunningMean(),
    parametric: new RunningMean()
  }
  const recall = { init: new RunningMean(), final: new RunningMean(), allGold: new RunningMean() }
  const stopReasons: Record<string, number> = {}
  const failures: Array<{ id: string; tag: string; message: string }> = []
  const rows: Array<{ readonly row: ItemScores; readonly scores: Partial<Record<MetricName, number>> }> = []
  let total = 0
  let done = 0

  const add = (item: ReportItem) => {
    total++
    if (options.metrics === undefined) { for (const name of defaultMetrics(taskOf(item.question))) named.add(name) }
    const outcome = item.outcome
    const scorable: Scorable = scorableOf(
      item.question,
      outcome._tag === "done" ? outcome.result.answer.text : "",
      item.qaPairs
    )
    const scores: Partial<Record<MetricName, number>> = {}
    if (outcome._tag === "done" || (options.scoreFailuresAsZero && outcome._tag === "failed")) {
      for (const name of candidates) {
        const metric = metrics[name]
        if (!metric.applies(scorable)) continue
        const score = metric.score(scorable)
        columns.get(name)!.push(score)
        if (outcome._tag === "done") scores[name] = score
      }
    }
    if (outcome._tag === "failed") failures.push({ id: item.question.id, ...outcome.error })
    const recallOf = outcome._tag === "done" ? recallInitFinal(item.question, outcome.result) : undefined
    if (outcome._tag === "done") {
      const result = outcome.result
      done++
      cost.llmCalls.add(result.counters.llm.total)
      cost.retrievals.add(result.counters.retrievals)
      cost.passages.add(result.counters.uniquePassages)
      cost.steps.add(result.counters.steps)
      cost.wallMs.add(result.elapsedMs)
      if (item.usage !== undefined) {
        cost.promptTokens.add(item.usage.promptTokens)
        cost.completionTokens.add(item.usage.completionTokens)
      }
      const subqueries = result.counters.subqueries
      if (subqueries !== undefined) {
        cost.retrieved.add(subqueries.retrieved)
        cost.parametric.add(subqueries.parametric)
      }
      stopReasons[result.stopReason] = (stopReasons[result.stopReason] ?? 0) + 1
      if (recallOf?.final !== undefined) {
        recall.init.add(recallOf.init ?? 0)
        recall.final.add(recallOf.final)
        recall.allGold.add(recallOf.final === 1 ? 1 : 0)
      }
    }
    if (options.perItem) rows.push({ row: itemScores(item, scorable, recallOf), scores })
  }

  const finish = (): Report => {
    const names = [...named]
    const summaries = names.map((name): MetricSummary => {
      const column = columns.get(name)!
      const ci = bootstrapMeanCi(column.scores, options.bootstrap)
      return {
        name,
        description: metrics[name].description,
        n: column.length,
        mean: pct(column.mean),
        ci: ci === undefined ? undefined : { ...ci, low: pct(ci.low), high: pct(ci.high) }
      }
    })
    const finished = done + failures.length
    const reportTotal = options.total ?? total
    const recalls = recall.final.count
    return new Report({
      title: options.title,
      partial: finished < reportTotal,
      counts: { total: reportTotal, finished, done, failed: failures.length },
      metrics: summaries,
      cost: {
        llmCalls: round2(cost.llmCalls.mean),
        retrievals: round2(cost.retrievals.mean),
        passages: round2(cost.passages.mean),
        steps: round2(cost.steps.mean),
        wallMs: round2(cost.wallMs.mean),
        promptTokens: cost.promptTokens.count === 0 ? undefined : round2(cost.promptTokens.mean),
        completionTokens: cost.completionTokens.count === 0 ? undefined : round2(cost.completionTokens.mean),
        ...(cost.retrieved.count === 0 ? {} : {
          subqueries: { retrieved: round2(cost.retrieved.mean), parametric: round2(cost.parametric.mean) }
        })
      },
      stopReasons,
      recall: {
        n: recalls,
        init: recalls === 0 ? undefined : pct(recall.init.mean),
        final: recalls === 0 ? undefined : pct(recall.final.mean),
        allGold: recalls === 0 ? undefined : pct(recall.allGold.mean)
      },
      budget: options.budget,
      failures,
      items: options.perItem ? rows.map(({ row, scores }) => withScores(row, scores, names)) : undefined
    })
  }

  return { add, finish }
}

/** A question's row, its scores to be filled in once the report's metrics are known (`withScores`). */
const itemScores = (
  item: ReportItem,
  s: Scorable,
  recall: { readonly init: number | undefined; readonly final: number | undefined } | undefined
): ItemScores => {
  const outcome = item.outcome
  if (outcome._tag === "done") {
    return {
      id: item.question.id,
      status: "done",
      prediction: outcome.result.answer.text,
      golds: s.golds,
      scores: {},
      stopReason: outcome.result.stopReason,
      llmCalls: outcome.result.counters.llm.total,
      retrievals: outcome.result.counters.retrievals,
      passages: outcome.result.counters.uniquePassages,
      recallInit: recall?.init,
      recallFinal: recall?.final
    }
  }
  return {
    id: item.question.id,
    status: outcome._tag,
    golds: s.golds,
    scores: {},
    error: outcome._tag === "failed" ? `${outcome.error.tag}: ${outcome.error.message}` : undefined
  }
}

/** The row with the scores of the report's metrics, in the report's order (those that applied). */
const withScores = (
  row: ItemScores,
  scores: Partial<Record<MetricName, number>>,
  names: ReadonlyArray<MetricName>
): ItemScores => {
  const ordered: Record<string, number> = {}
  for (const name of names) {
    const score = scores[name]
    if (score !== undefined) ordered[name] = score
  }
  return { ...row, scores: ordered }
}
