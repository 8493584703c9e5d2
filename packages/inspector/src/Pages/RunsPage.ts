import { getJson, listRuns, listSweeps } from "../Api.js"
import { h, link, render } from "../Dom.js"
import { badge, pct, progress, when } from "../Format.js"
import { cellSummary, knobSummary } from "../Knobs.js"
import { href } from "../Router.js"
import { type Column, sortableTable } from "../Table.js"
import type { Report, RunResults, RunView, SweepView } from "../Types.js"

/** The headline metric of a report: `acc` or `f1` or `em` when present, else the first. */
const headline = (report: Report | undefined) =>
  report?.metrics.find((m) => m.name === "f1") ?? report?.metrics.find((m) => m.name === "acc") ?? report?.metrics[0]

/** Fills each run's metric cell from its report, a few runs at a time (the list itself has no metrics). */
const fillMetrics = async (runs: ReadonlyArray<RunView>, cells: Map<string, HTMLElement>): Promise<void> => {
  const queue = [...runs]
  const worker = async () => {
    for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
      const cell = cells.get(run.id)
      if (cell === undefined) continue
      try {
        const page = await getJson<RunResults>(`/v1/runs/${encodeURIComponent(run.id)}/results?limit=1&report=true`)
        const metric = headline(page.report)
        render(
          cell,
          metric === undefined
            ? "–"
            : h(
              "span",
              { title: metric.description },
              `${metric.name} ${pct(metric.mean)}`,
              metric.ci === undefined ? "" : h("small", {}, ` [${pct(metric.ci.low)}, ${pct(metric.ci.high)}]`)
            )
        )
      } catch {
        render(cell, "–")
      }
    }
  }
  await Promise.all([worker(), worker(), worker()])
}

const runColumns = (metricCells: Map<string, HTMLElement>): ReadonlyArray<Column<RunView>> => [
  {
    label: "run",
    sort: (r) => r.label ?? r.id,
    cell: (r) => [link(href.run(r.id), r.label ?? r.id), r.label === undefined ? "" : h("div", { class: "sub" }, r.id)]
  },
  { label: "status", sort: (r) => r.state, cell: (r) => badge(r.state) },
  {
    label: "progress",
    sort: (r) => (r.counts.done + r.counts.failed) / Math.max(1, r.counts.total),
    cell: (r) => progress(r.counts.done, r.counts.failed, r.counts.total)
  },
  { label: "profile", sort: (r) => r.config.profile, cell: (r) => r.config.profile },
  { label: "knobs", cell: (r) => h("span", { class: "knobs" }, knobSummary(r)) },
  {
    label: "metric",
    cell: (r) => metricCell(r.id, metricCells)
  },
  { label: "created", sort: (r) => r.createdAt, cell: (r) => when(r.createdAt) }
]

/** A placeholder the metric filler replaces with the run's headline metric. */
const metricCell = (runId: string, metricCells: Map<string, HTMLElement>): HTMLElement => {
  const cell = h("span", { class: "metric-cell" }, "…")
  metricCells.set(runId, cell)
  return cell
}

const sweepSection = (
  sweep: SweepView,
  runsById: Map<string, RunView>,
  metricCells: Map<string, HTMLElement>
): HTMLElement => {
  const cells = sweep.cells.map((c) => ({
    ...c,
    view: c.run ?? (c.runId === undefined ? undefined : runsById.get(c.runId))
  }))
  const ids = cells.flatMap((c) => c.view === undefined ? [] : [c.view.id])
  return h(
    "section",
    { class: "sweep card" },
    h(
      "h3",
      {},
      link(href.sweep(sweep.id), `sweep ${sweep.label ?? sweep.id}`),
      h("small", {}, ` · ${sweep.cells.length} cells · ${when(sweep.createdAt)}`),
      ids.length >= 2 ? [" · ", link(href.compare(ids[0]!, ids[1]!), "compare first two")] : ""
    ),
    h(
      "ul",
      { class: "cells" },
      cells.map((c) =>
        h(
          "li",
          {},
          h("code", {}, cellSummary(c.cell)),
          " ",
          c.view === undefined
            ? h("span", { class: "sub" }, "not started")
            : [
              link(href.run(c.view.id), c.view.id),
              " ",
              badge(c.view.state),
              " ",
              progress(c.view.counts.done, c.view.counts.failed, c.view.counts.total),
              " ",
              metricCell(c.view.id, metricCells)
            ]
        )
      )
    )
  )
}

/** `#/runs`: every run of the tenant, sweeps grouped with their cells. */
export const runsPage = async (main: HTMLElement): Promise<void> => {
  const [runs, sweeps] = await Promise.all([
    listRuns(),
    listSweeps().catch(() => [] as ReadonlyArray<SweepView>)
  ])
  const runsById = new Map(runs.map((r) => [r.id, r]))
  const inSweep = new Set(sweeps.flatMap((s) => s.cells.flatMap((c) => c.runId ?? c.run?.id ?? [])))
  const single = [...runs].filter((r) => !inSweep.has(r.id))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  const metricCells = new Map<string, HTMLElement>()
  render(
    main,
    h("h1", {}, "Runs"),
    h("p", { class: "sub" }, `${runs.length} runs · ${sweeps.length} sweeps`),
    sweeps.length === 0 ? "" : h("h2", {}, "Sweeps"),
    sweeps.map((s) => sweepSection(s, runsById, metricCells)),
    h("h2", {}, "Runs"),
    sortableTable(runColumns(metricCells), single, {
      className: "runs",
      empty: "no runs yet: start one with `deepnote run` or POST /v1/runs"
    })
  )
  const cellRuns = sweeps.flatMap((s) =>
    s.cells.flatMap((c) => {
      const view = c.run ?? (c.runId === undefined ? undefined : runsById.get(c.runId))
      return view === undefined ? [] : [view]
    })
  )
  void fillMetrics([...single, ...cellRuns], metricCells)
}
