import type { PipelineResult, Question } from "@deepnote-rag/core"
import { Data, Effect } from "effect"
import { bootstrapMeanCi, type BootstrapOptions, mean } from "../Metrics/Bootstrap.js"
import { defaultMetrics, type MetricName, scorableOf, scoreItem } from "../Metrics/Metric.js"
import { type ComparedItem, type ComparedSide, Comparison, type MetricDifference } from "./Comparison.js"

/** One question of a run as the comparison reads it (any status; only finished ones are scored). */
export interface CompareInput {
  readonly seq: number
  readonly status: "pending" | "running" | "done" | "failed"
  readonly question: Question
  readonly result?: PipelineResult | undefined
}

/** No question of one run is in the other (by question id): the runs were made from different datasets. */
export class NothingToCompare extends Data.TaggedError("NothingToCompare")<{
  readonly baseCount: number
  readonly candidateCount: number
}> {
  override get message(): string {
    return `no question pairs: none of the candidate's ${this.candidateCount} question ids is among the base's ` +
      `${this.baseCount} (were the runs made from different datasets?)`
  }
}

const pct = (x: number) => Math.round(x * 10000) / 100
const finished = (side: CompareInput) => side.status === "done" || side.status === "failed"

/** The metric that decides a question's change: F1 where the task reports it, else the task's first metric. */
const primaryOf = (names: ReadonlyArray<MetricName>): MetricName | undefined => names.includes("f1") ? "f1" : names[0]

/** A prediction's scores in [0, 1] by the named metrics (default: the question's task's) that apply to it. */
export const scoreQuestion = (
  question: Question,
  prediction: string,
  names: ReadonlyArray<MetricName> = defaultMetrics(question.task ?? "multihop")
): Partial<Record<MetricName, number>> => scoreItem(scorableOf(question, prediction), names)

/** The metrics the comparison scores a set of questions by: those of every question's task. */
export const metricsOf = (questions: ReadonlyArray<Question>): ReadonlyArray<MetricName> => [
  ...new Set(questions.flatMap((q) => defaultMetrics(q.task ?? "multihop")))
]

/**
 * A question's scores as the comparison counts them: a finished question by the named metrics, a failed one 0 on
 * every metric that applies (a crash is a regression), an unfinished one none. The run page's per-question scores.
 */
export const scoresOf = (side: CompareInput, names: ReadonlyArray<MetricName>): Partial<Record<MetricName, number>> =>
  finished(side)
    ? scoreQuestion(side.question, side.status === "done" ? side.result?.answer.text ?? "" : "", names)
    : {}

const sideOf = (side: CompareInput, scores: Partial<Record<MetricName, number>>): ComparedSide => ({
  seq: side.seq,
  status: side.status,
  ...(side.status === "done" && side.result !== undefined ? { answer: side.result.answer.text } : {}),
  metrics: scores
})

const changeRank = { regressed: 0, improved: 1, same: 2 } as const

/**
 * Compares two runs question by question, pairing questions by id (never by position): per metric the means over the
 * pairs both runs finished and a paired-bootstrap interval of the mean difference (the per-question differences
 * resampled with `bootstrapMeanCi`, seeded); per question whether the candidate improved or regressed on the task's
 * primary metric. Fails with `NothingToCompare` when no question id is in both runs.
 */
export const compareItems = (
  base: ReadonlyArray<CompareInput>,
  candidate: ReadonlyArray<CompareInput>,
  options: BootstrapOptions = {}
): Effect.Effect<Comparison, NothingToCompare> =>
  Effect.gen(function*() {
    const byId = new Map(candidate.map((c) => [c.question.id, c]))
    const pairs = base.flatMap((b) => {
      const c = byId.get(b.question.id)
      return c === undefined ? [] : [{ base: b, candidate: c }]
    })
    if (pairs.length === 0) {
      return yield* new NothingToCompare({ baseCount: base.length, candidateCount: candidate.length })
    }
    const taskNames = (q: Question) => defaultMetrics(q.task ?? "multihop")
    const names = metricsOf(pairs.map((p) => p.base.question))
    const scored = pairs.map((p) => ({
      ...p,
      baseScores: scoresOf(p.base, names),
      candidateScores: scoresOf(p.candidate, names)
    }))
    const resamples = options.resamples ?? 1000
    const seed = options.seed ?? 20241011
    const metricRows: Array<MetricDifference> = names.flatMap((name) => {
      const both = scored.flatMap((s) => {
        const b = s.baseScores[name]
        const c = s.candidateScores[name]
        return b === undefined || c === undefined ? [] : [{ b, c }]
      })
      if (both.length === 0) return []
      const differences = both.map(({ b, c }) => c - b)
      const difference = mean(differences)
      const ci = bootstrapMeanCi(differences, { ...options, resamples, seed })
      return [{
        metric: name,
        n: both.length,
        base: pct(mean(both.map((x) => x.b))),
        candidate: pct(mean(both.map((x) => x.c))),
        difference: pct(difference),
        low: pct(ci?.low ?? difference),
        high: pct(ci?.high ?? difference)
      }]
    })
    const items = scored.map((s) => {
      const primary = primaryOf(taskNames(s.base.question))
      const b = primary === undefined ? undefined : s.baseScores[primary]
      const c = primary === undefined ? undefined : s.candidateScores[primary]
      const delta = b === undefined || c === undefined ? 0 : c - b
      const item: ComparedItem = {
        itemId: s.base.question.id,
        question: s.base.question.text,
        base: sideOf(s.base, s.baseScores),
        candidate: sideOf(s.candidate, s.candidateScores),
        change: delta > 1e-9 ? "improved" : delta < -1e-9 ? "regressed" : "same"
      }
      return { item, delta }
    })
    items.sort((x, y) =>
      changeRank[x.item.change] - changeRank[y.item.change] ||
      Math.abs(y.delta) - Math.abs(x.delta) ||
      x.item.base.seq - y.item.base.seq
    )
    return new Comparison({
      paired: pairs.length,
      onlyBase: base.length - pairs.length,
      onlyCandidate: candidate.length - pairs.length,
      primaryMetric: primaryOf(names) ?? "f1",
      resamples,
      seed,
      metrics: metricRows,
      items: items.map((x) => x.item)
    })
  })
