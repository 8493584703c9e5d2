import { Schema } from "effect"
import { Report } from "./Report.js"

const fixed = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(2))

/** Rows of cells as aligned text columns (`right`: the right-aligned column indexes). */
export const align = (rows: ReadonlyArray<ReadonlyArray<string>>, right: ReadonlySet<number>): Array<string> => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? "")].length)))
  return rows.map((r) =>
    r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join("  ").trimEnd()
  )
}

/** A plain-text report with aligned columns (no colours), for terminals and logs. */
export const renderTable = (report: Report): string => {
  const { counts } = report
  const lines: Array<string> = []
  const head = report.title ?? "DeepNote evaluation"
  lines.push(report.partial ? `${head} (partial: ${counts.finished} of ${counts.total})` : head)
  lines.push(
    `questions: ${counts.total} total, ${counts.done} done, ${counts.failed} failed, ` +
      `${counts.total - counts.finished} not finished`
  )
  lines.push("")
  lines.push(...align([
    ["metric", "n", "mean", "95% CI"],
    ...report.metrics.map((
      m
    ) => [m.name, String(m.n), fixed(m.mean), m.ci ? `[${fixed(m.ci.low)}, ${fixed(m.ci.high)}]` : "-"])
  ], new Set([1, 2])))
  lines.push("")
  const c = report.cost
  const tokens = c.promptTokens === undefined
    ? ""
    : `, tokens ${fixed(c.promptTokens)} prompt / ${fixed(c.completionTokens)} completion`
  const passages = c.passages === undefined ? "" : `${fixed(c.passages)} passages read, `
  lines.push(
    `per question: ${fixed(c.llmCalls)} LLM calls, ${fixed(c.retrievals)} retrievals, ${passages}` +
      `${fixed(c.steps)} steps, ${fixed(c.wallMs)} ms${tokens}`
  )
  if (c.subqueries !== undefined) {
    lines.push(
      `subqueries per question: ${fixed(c.subqueries.retrieved)} retrieved, ${
        fixed(c.subqueries.parametric)
      } parametric`
    )
  }
  if (report.recall.n > 0) {
    const { allGold, final, init, n } = report.recall
    const within = report.budget === undefined ? "" : `, budget ${report.budget} passages`
    const all = allGold === undefined ? "" : `; every gold passage read: ${fixed(allGold)}%`
    lines.push(`gold recall: ${fixed(init)} after init, ${fixed(final)} final (n=${n}${within})${all}`)
  }
  const stops = Object.entries(report.stopReasons).sort(([, a], [, b]) => b - a).map(([k, v]) => `${k} ${v}`)
  if (stops.length > 0) lines.push(`stop reasons: ${stops.join(", ")}`)
  if (report.failures.length > 0) {
    const f = report.failures[0]!
    lines.push(`failures: ${report.failures.length} (first: ${f.id} ${f.tag}: ${f.message})`)
  }
  return lines.join("\n")
}

/** The report as JSON (its Schema encoding). */
export const renderJson = (report: Report): string => JSON.stringify(Schema.encodeSync(Report)(report), null, 2)

/** One CSV cell, quoted when it holds a quote, comma or newline. */
export const csvCell = (value: string | number | undefined) => {
  const text = value === undefined ? "" : String(value)
  return /[",\n]/u.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text
}

/** One CSV row per metric: `metric,n,mean,ci_low,ci_high,finished,total,description`. */
export const renderCsv = (report: Report): string =>
  [
    "metric,n,mean,ci_low,ci_high,finished,total,description",
    ...report.metrics.map((m) =>
      [m.name, m.n, m.mean, m.ci?.low, m.ci?.high, report.counts.finished, report.counts.total, m.description]
        .map(csvCell).join(",")
    )
  ].join("\n") + "\n"

/** Per-question scores as CSV (needs a report built with `perItem`). */
export const renderItemsCsv = (report: Report): string => {
  const items = report.items ?? []
  const names = report.metrics.map((m) => m.name)
  const header = [
    "id",
    "status",
    ...names,
    "stop_reason",
    "llm_calls",
    "retrievals",
    "passages",
    "recall_init",
    "recall_final",
    "prediction",
    "error"
  ]
  return [
    header.join(","),
    ...items.map((i) =>
      [
        i.id,
        i.status,
        ...names.map((n) => i.scores[n]),
        i.stopReason,
        i.llmCalls,
        i.retrievals,
        i.passages,
        i.recallInit,
        i.recallFinal,
        i.prediction,
        i.error
      ]
        .map(csvCell).join(",")
    )
  ].join("\n") + "\n"
}
