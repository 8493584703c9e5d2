import { compareRuns, getJson, getSweep } from "../Api.js"
import { h, link, render } from "../Dom.js"
import { badge, pct, progress, signed, when } from "../Format.js"
import { cellSummary } from "../Knobs.js"
import { href } from "../Router.js"
import type { Comparison, RunResults, SweepView } from "../Types.js"

type Cell = SweepView["cells"][number]

const runIdOf = (cell: Cell): string | undefined => cell.run?.id ?? cell.runId

/** Each cell against the base cell: the metric differences with their paired intervals. */
const differences = async (base: string, cells: ReadonlyArray<Cell>, target: HTMLElement): Promise<void> => {
  const others = cells.flatMap((c) => {
    const id = runIdOf(c)
    return id === undefined || id === base ? [] : [{ cell: c, id }]
  })
  const results = await Promise.all(
    others.map((o) => compareRuns(base, o.id).then((c): Comparison | undefined => c, () => undefined))
  )
  const names = [...new Set(results.flatMap((r) => r?.metrics.map((m) => m.metric) ?? []))]
  render(
    target,
    h(
      "table",
      { class: "stack metrics sweep-diff" },
      h(
        "thead",
        {},
        h("tr", {}, h("th", {}, "cell"), names.map((n) => h("th", {}, `Δ ${n} [95%]`)), h("th", {}, "questions"))
      ),
      h(
        "tbody",
        {},
        others.map((o, i) => {
          const comparison = results[i]
          return h(
            "tr",
            {},
            h("td", { "data-label": "cell" }, link(href.compare(base, o.id), cellSummary(o.cell.cell))),
            names.map((n) => {
              const m = comparison?.metrics.find((x) => x.metric === n)
              return h(
                "td",
                {
                  "data-label": `Δ ${n}`,
                  class: m === undefined ? "" : m.low > 0 ? "change-up" : m.high < 0 ? "change-down" : ""
                },
                m === undefined ? "–" : `${signed(m.difference)} [${signed(m.low)}, ${signed(m.high)}]`
              )
            }),
            h(
              "td",
              { "data-label": "questions" },
              comparison === undefined
                ? "–"
                : `${comparison.items.filter((x) => x.change === "regressed").length} regressed, ${
                  comparison.items.filter((x) => x.change === "improved").length
                } improved`
            )
          )
        })
      )
    )
  )
}

/** Each cell's metrics with their 95% intervals, from its run's report (a few runs at a time). */
const fillCellMetrics = async (targets: ReadonlyArray<{ readonly id: string; readonly cell: HTMLElement }>) => {
  const queue = [...targets]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { cell, id } = next
      try {
        const page = await getJson<RunResults>(`/v1/runs/${encodeURIComponent(id)}/results?limit=1&report=true`)
        const metrics = page.report?.metrics ?? []
        render(
          cell,
          metrics.length === 0 ? "–" : metrics.map((m, i) =>
            h(
              "span",
              { class: "cell-metric", "data-metric": m.name, title: m.description },
              i === 0 ? "" : " · ",
              `${m.name} ${pct(m.mean)}`,
              m.ci === undefined ? "" : h("small", {}, ` [${pct(m.ci.low)}, ${pct(m.ci.high)}]`)
            )
          )
        )
      } catch {
        render(cell, "–")
      }
    }
  }
  await Promise.all([worker(), worker(), worker()])
}

/**
 * `#/sweeps/{id}`: every cell of a sweep with its run and metrics, and every cell compared with a base cell (the first
 * by default): per metric the difference with its paired interval, linking to the compare page.
 */
export const sweepPage = async (main: HTMLElement, sweepId: string): Promise<void> => {
  const sweep = await getSweep(sweepId)
  const withRuns = sweep.cells.filter((c) => runIdOf(c) !== undefined)
  const metricCells: Array<{ readonly id: string; readonly cell: HTMLElement }> = []
  const diffs = h("div", {}, "…")
  const baseSelect = h(
    "select",
    { "aria-label": "base cell" },
    withRuns.map((c) => h("option", { value: runIdOf(c) }, cellSummary(c.cell)))
  )
  baseSelect.addEventListener("change", () => void differences(baseSelect.value, sweep.cells, diffs))
  render(
    main,
    h("p", { class: "crumbs" }, link(href.runs(), "runs"), " / sweep ", sweep.id),
    h("h1", {}, `Sweep ${sweep.label ?? sweep.id}`),
    h("p", { class: "sub" }, `${sweep.cells.length} cells · created ${when(sweep.createdAt)}`),
    h("details", {}, h("summary", {}, "grid"), h("pre", {}, JSON.stringify(sweep.grid, null, 2))),
    h(
      "section",
      { class: "card" },
      h("h2", {}, "Cells"),
      h(
        "ul",
        { class: "cells" },
        sweep.cells.map((c) => {
          const id = runIdOf(c)
          return h(
            "li",
            {},
            h("code", {}, cellSummary(c.cell)),
            " ",
            id === undefined ? h("span", { class: "sub" }, "not started") : link(href.run(id), id),
            c.run === undefined
              ? ""
              : [" ", badge(c.run.state), " ", progress(c.run.counts.done, c.run.counts.failed, c.run.counts.total)],
            id === undefined ? "" : (() => {
              const cell = h("div", { class: "cell-metrics", "data-run": id }, "…")
              metricCells.push({ id, cell })
              return cell
            })()
          )
        })
      )
    ),
    withRuns.length < 2
      ? ""
      : h("section", { class: "card" }, h("h2", {}, "Each cell against ", baseSelect), diffs)
  )
  void fillCellMetrics(metricCells)
  if (withRuns.length >= 2) void differences(baseSelect.value, sweep.cells, diffs)
}
