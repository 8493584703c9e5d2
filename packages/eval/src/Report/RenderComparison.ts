import { counted } from "@deepnote-rag/core"
import { Schema } from "effect"
import { Comparison } from "./Comparison.js"
import { align, csvCell } from "./Render.js"

/** The two runs' ids as the renderings name them. */
export interface ComparedRuns {
  readonly base: string
  readonly candidate: string
}

const fixed = (x: number) => x.toFixed(2)
const signed = (x: number) => (x > 0 ? `+${fixed(x)}` : fixed(x))

const listed = (comparison: Comparison, change: "regressed" | "improved", limit: number): Array<string> => {
  const items = comparison.items.filter((i) => i.change === change)
  if (items.length === 0) return []
  const m = comparison.primaryMetric
  const score = (x: number | undefined) => (x === undefined ? "-" : fixed(x * 100))
  return [
    "",
    `${change} (${items.length}, by ${m}):`,
    ...items.slice(0, limit).map((i) =>
      `  ${i.itemId}  ${score(i.base.metrics[m])} → ${score(i.candidate.metrics[m])}  ${i.question.slice(0, 80)}`
    ),
    ...(items.length > limit ? [`  … ${items.length - limit} more (--json lists them all)`] : [])
  ]
}

/** The comparison as text: the pairing, one row per metric with its 95% interval, then the changed questions. */
export const renderComparisonTable = (runs: ComparedRuns, comparison: Comparison, limit = 10): string => {
  const c = comparison
  const lines = [
    `compare ${runs.base} (base) → ${runs.candidate} (candidate)`,
    `questions: ${c.paired} paired by id, ${c.onlyBase} only in base, ${c.onlyCandidate} only in candidate`,
    ""
  ]
  if (c.metrics.length === 0) lines.push("no metric applies to the paired questions both runs finished")
  else {
    lines.push(...align([
      ["metric", "n", "base", "candidate", "difference", "95% CI (paired bootstrap)"],
      ...c.metrics.map((m) => [
        m.metric,
        String(m.n),
        fixed(m.base),
        fixed(m.candidate),
        signed(m.difference),
        `[${signed(m.low)}, ${signed(m.high)}]`
      ])
    ], new Set([1, 2, 3, 4])))
  }
  lines.push(...listed(c, "regressed", limit), ...listed(c, "improved", limit))
  const same = c.items.filter((i) => i.change === "same").length
  lines.push("", `${counted(same, "question")} unchanged by ${c.primaryMetric}`)
  return lines.join("\n")
}

/** The comparison as JSON: the two run ids and the comparison's Schema encoding. */
export const renderComparisonJson = (runs: ComparedRuns, comparison: Comparison): string =>
  JSON.stringify({ ...runs, ...Schema.encodeSync(Comparison)(comparison) }, null, 2)

/** One CSV row per metric: `metric,n,base,candidate,difference,ci_low,ci_high,paired,base_run,candidate_run`. */
export const renderComparisonCsv = (runs: ComparedRuns, comparison: Comparison): string =>
  [
    "metric,n,base,candidate,difference,ci_low,ci_high,paired,base_run,candidate_run",
    ...comparison.metrics.map((m) =>
      [m.metric, m.n, m.base, m.candidate, m.difference, m.low, m.high, comparison.paired, runs.base, runs.candidate]
        .map(csvCell).join(",")
    )
  ].join("\n") + "\n"

/** One CSV row per paired question: `item_id,change,base_status,candidate_status,base_<m>,candidate_<m>,question`. */
export const renderComparedItemsCsv = (comparison: Comparison): string => {
  const m = comparison.primaryMetric
  return [
    `item_id,change,base_status,candidate_status,base_${m},candidate_${m},question`,
    ...comparison.items.map((i) =>
      [i.itemId, i.change, i.base.status, i.candidate.status, i.base.metrics[m], i.candidate.metrics[m], i.question]
        .map(csvCell).join(",")
    )
  ].join("\n") + "\n"
}
