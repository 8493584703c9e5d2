import { getJson, listRunsPage, listSweeps } from "../Api.js"
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

/**
 * The run's metric cell: a placeholder the metric filler replaces with the run's headline metric. One element per run,
 * moved into the new row when a header click sorts the table again (a new placeholder each time lost the filled
 * metrics to "…" for good).
 */
const metricCell = (runId: string, metricCells: Map<string, HTMLElement>): HTMLElement => {
  const known = metricCells.get(runId)
  if (known !== undefined) return known
  const cell = h("span", { class: "metric-cell" }, "…")
  metricCells.set(runId, cell)
  return cell
}

const sweepSection = (
  sweep: SweepView,
  metricCells: Map<string, HTMLElement>
): HTMLElement => {
  const ids = sweep.cells.flatMap((c) => c.run === undefined ? [] : [c.run.id])
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
      sweep.cells.map((c) =>
        h(
          "li",
          {},
          h("code", {}, cellSummary(c.cell)),
          " ",
          c.run === undefined
            ? h("span", { class: "sub" }, "not started")
            : [
              link(href.run(c.run.id), c.run.id),
              " ",
              badge(c.run.state),
              " ",
              progress(c.run.counts.done, c.run.counts.failed, c.run.counts.total),
              " ",
              metricCell(c.run.id, metricCells)
            ]
        )
      )
    )
  )
}

/**
 * `#/runs`: the tenant's sweeps with their cells, and its other runs newest first, `pageSize` at a time ("older runs"
 * loads the next page). Each shown run's headline metric is filled from its report, so a page costs as many reports
 * as it shows runs — not as many as the tenant has.
 */
export const runsPage = async (main: HTMLElement, pageSize: number): Promise<void> => {
  const [first, sweeps] = await Promise.all([
    listRunsPage(pageSize),
    listSweeps().catch(() => [] as ReadonlyArray<SweepView>)
  ])
  const metricCells = new Map<string, HTMLElement>()
  const inSweep = new Set(sweeps.flatMap((s) => s.cells.flatMap((c) => c.runId ?? c.run?.id ?? [])))
  const singles = (runs: ReadonlyArray<RunView>) => runs.filter((r) => !inSweep.has(r.id))
  let shown = singles(first.runs)
  let next = first.nextBefore
  const summary = h("p", { class: "sub" })
  const table = h("div", { class: "runs-list" })
  const more = h("button", { type: "button", class: "older-runs" }, "older runs")
  const draw = () => {
    render(
      summary,
      `${shown.length} runs${next === undefined ? "" : " shown (older ones below)"} · ${sweeps.length} sweeps`
    )
    render(
      table,
      sortableTable(runColumns(metricCells), shown, {
        className: "runs",
        empty: next === undefined ? "no runs yet: start one with `deepnote run` or POST /v1/runs" : "none on this page"
      })
    )
    more.hidden = next === undefined
  }
  more.addEventListener("click", () => {
    if (next === undefined) return
    more.setAttribute("disabled", "")
    listRunsPage(pageSize, next).then(
      (page) => {
        const added = singles(page.runs)
        shown = [...shown, ...added]
        next = page.nextBefore
        draw()
        void fillMetrics(added, metricCells)
      },
      () => undefined
    ).finally(() => more.removeAttribute("disabled"))
  })
  draw()
  render(
    main,
    h("h1", {}, "Runs"),
    summary,
    sweeps.length === 0 ? "" : h("h2", {}, "Sweeps"),
    sweeps.map((s) => sweepSection(s, metricCells)),
    h("h2", {}, "Runs"),
    table,
    more
  )
  const cellRuns = sweeps.flatMap((s) => s.cells.flatMap((c) => c.run === undefined ? [] : [c.run]))
  void fillMetrics([...shown, ...cellRuns], metricCells)
}
