import { Schema } from "effect"
import { align, csvCell } from "./Render.js"
import { Report } from "./Report.js"

/** One row of a side-by-side table: a run's report, or a sweep cell not created yet (no `report`). */
export interface SideBySideRow {
  readonly runId?: string | undefined
  /** The sweep cell's knob values, when the row is a cell. */
  readonly cell?: Record<string, unknown> | undefined
  readonly label?: string | undefined
  readonly report?: Report | undefined
}

const fixed = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(2))

const describeCell = (row: SideBySideRow) =>
  row.cell === undefined
    ? row.label ?? ""
    : Object.entries(row.cell).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ")

const metricNames = (rows: ReadonlyArray<SideBySideRow>) => [
  ...new Set(rows.flatMap((r) => r.report?.metrics.map((m) => m.name) ?? []))
]

/**
 * Several reports as one table, a row per run (or sweep cell): finished/total, each metric's mean with its 95%
 * interval, LLM calls per question. A cell not created yet shows as such.
 */
export const renderSideBySideTable = (title: string, rows: ReadonlyArray<SideBySideRow>): string => {
  const names = metricNames(rows)
  const withCell = rows.some((r) => r.cell !== undefined || r.label !== undefined)
  const table = [
    ["run", ...(withCell ? ["cell"] : []), "finished", ...names, "llm calls/q"],
    ...rows.map((row) => {
      const r = row.report
      return [
        row.runId ?? "(not created)",
        ...(withCell ? [describeCell(row)] : []),
        r === undefined ? "-" : `${r.counts.finished}/${r.counts.total}`,
        ...names.map((name) => {
          const m = r?.metrics.find((x) => x.name === name)
          return m === undefined ? "-" : `${fixed(m.mean)}${m.ci ? ` [${fixed(m.ci.low)}, ${fixed(m.ci.high)}]` : ""}`
        }),
        r === undefined ? "-" : fixed(r.cost.llmCalls)
      ]
    })
  ]
  return [title, "", ...align(table, new Set())].join("\n")
}

/** One CSV row per run (or cell) and metric: `run_id,cell,metric,n,mean,ci_low,ci_high,finished,total`. */
export const renderSideBySideCsv = (rows: ReadonlyArray<SideBySideRow>): string =>
  [
    "run_id,cell,metric,n,mean,ci_low,ci_high,finished,total",
    ...rows.flatMap((row) => {
      const r = row.report
      const cell = row.cell === undefined ? "" : JSON.stringify(row.cell)
      if (r === undefined) return [[row.runId, cell].map(csvCell).join(",")]
      return r.metrics.map((m) =>
        [row.runId, cell, m.name, m.n, m.mean, m.ci?.low, m.ci?.high, r.counts.finished, r.counts.total]
          .map(csvCell).join(",")
      )
    })
  ].join("\n") + "\n"

/** The rows as JSON objects (each report in its Schema encoding), for `--format json`. */
export const sideBySideJson = (rows: ReadonlyArray<SideBySideRow>) =>
  rows.map((row) => ({
    ...(row.runId === undefined ? {} : { runId: row.runId }),
    ...(row.cell === undefined ? {} : { cell: row.cell }),
    ...(row.label === undefined ? {} : { label: row.label }),
    ...(row.report === undefined ? {} : { report: Schema.encodeSync(Report)(row.report) })
  }))
