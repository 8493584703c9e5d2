import { getJson, listRunsPage, listSweepsPage } from "../Api.js"
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
 * `#/runs`: the tenant's sweeps with their cells, and its other runs, both newest first and `pageSize` at a time ("older
 * sweeps", "older runs" load the next page). Each shown run's headline metric is filled from its report, so a page
 * costs as many reports as it shows runs — not as many as the tenant has. A run of a sweep not loaded yet is listed
 * with the runs until its sweep is.
 */
export const runsPage = async (main: HTMLElement, pageSize: number): Promise<void> => {
  const [firstRuns, firstSweeps] = await Promise.all([
    listRunsPage(pageSize),
    listSweepsPage(pageSize).catch((): Awaited<ReturnType<typeof listSweepsPage>> => ({ sweeps: [] }))
  ])
  const metricCells = new Map<string, HTMLElement>()
  let sweeps = firstSweeps.sweeps
  let nextSweeps = firstSweeps.nextBefore
  let runs = firstRuns.runs
  let nextRuns = firstRuns.nextBefore
  const sweepRuns = (list: ReadonlyArray<SweepView>) =>
    list.flatMap((s) => s.cells.flatMap((c) => c.run === undefined ? [] : [c.run]))
  const singles = () => {
    const inSweep = new Set(sweepRuns(sweeps).map((r) => r.id))
    return runs.filter((r) => !inSweep.has(r.id))
  }
  const summary = h("p", { class: "sub" })
  const sweepList = h("div", { class: "sweeps-list" })
  const table = h("div", { class: "runs-list" })
  const olderSweeps = h("button", { type: "button", class: "older-sweeps" }, "older sweeps")
  const olderRuns = h("button", { type: "button", class: "older-runs" }, "older runs")
  const draw = () => {
    const shown = singles()
    render(
      summary,
      `${shown.length} runs${nextRuns === undefined ? "" : " shown (older ones below)"} · ${sweeps.length} sweeps${
        nextSweeps === undefined ? "" : " shown (older ones below them)"
      }`
    )
    render(
      sweepList,
      sweeps.length === 0 ? "" : h("h2", {}, "Sweeps"),
      sweeps.map((s) => sweepSection(s, metricCells))
    )
    render(
      table,
      sortableTable(runColumns(metricCells), shown, {
        className: "runs",
        empty: nextRuns === undefined
          ? "no runs yet: start one with `deepnote run` or POST /v1/runs"
          : "none on this page"
      })
    )
    olderSweeps.hidden = nextSweeps === undefined
    olderRuns.hidden = nextRuns === undefined
  }
  /** Loads the next page with `load` when `button` is clicked (one request at a time), then draws again. */
  const pager = <A>(button: HTMLElement, load: () => Promise<A> | undefined, loaded: (page: A) => void) =>
    button.addEventListener("click", () => {
      const request = load()
      if (request === undefined) return
      button.setAttribute("disabled", "")
      request.then((page) => {
        loaded(page)
        draw()
      }, () => undefined).finally(() => button.removeAttribute("disabled"))
    })
  pager(
    olderSweeps,
    () => nextSweeps === undefined ? undefined : listSweepsPage(pageSize, nextSweeps),
    (page) => {
      sweeps = [...sweeps, ...page.sweeps]
      nextSweeps = page.nextBefore
      void fillMetrics(sweepRuns(page.sweeps), metricCells)
    }
  )
  pager(
    olderRuns,
    () => nextRuns === undefined ? undefined : listRunsPage(pageSize, nextRuns),
    (page) => {
      runs = [...runs, ...page.runs]
      nextRuns = page.nextBefore
      void fillMetrics(page.runs, metricCells)
    }
  )
  draw()
  render(main, h("h1", {}, "Runs"), summary, sweepList, olderSweeps, h("h2", {}, "Runs"), table, olderRuns)
  void fillMetrics([...runs, ...sweepRuns(sweeps)], metricCells)
}
