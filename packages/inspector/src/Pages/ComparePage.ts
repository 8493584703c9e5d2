import { compareRuns } from "../Api.js"
import { h, link, render } from "../Dom.js"
import { badge, pct, score, signed } from "../Format.js"
import { runName } from "../Knobs.js"
import { href } from "../Router.js"
import { type Column, sortableTable } from "../Table.js"
import type { Comparison } from "../Types.js"

type Item = Comparison["items"][number]

const metricRows = (comparison: Comparison): HTMLElement =>
  h(
    "table",
    { class: "metrics diff-metrics" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "metric"),
        h("th", { class: "num" }, "base"),
        h("th", { class: "num" }, "candidate"),
        h("th", { class: "num" }, "difference"),
        h("th", {}, "paired bootstrap 95%")
      )
    ),
    h(
      "tbody",
      {},
      comparison.metrics.map((m) => {
        const sure = m.low > 0 ? "up" : m.high < 0 ? "down" : "unsure"
        return h(
          "tr",
          { class: `change-${sure}` },
          h("td", {}, m.metric),
          h("td", { class: "num" }, pct(m.base)),
          h("td", { class: "num" }, pct(m.candidate)),
          h("td", { class: "num" }, signed(m.difference)),
          h("td", {}, `${signed(m.low)} … ${signed(m.high)}`)
        )
      })
    )
  )

const itemColumns = (base: string, candidate: string): ReadonlyArray<Column<Item>> => [
  { label: "change", sort: (i) => i.change, cell: (i) => badge(i.change) },
  { label: "question", sort: (i) => i.question, cell: (i) => link(href.pair(base, candidate, i.itemId), i.question) },
  { label: "base answer", cell: (i) => [link(href.question(base, i.itemId), i.base.answer ?? i.base.status)] },
  {
    label: "candidate answer",
    cell: (i) => [link(href.question(candidate, i.itemId), i.candidate.answer ?? i.candidate.status)]
  },
  {
    label: "scores",
    cell: (i) =>
      Object.keys({ ...i.base.metrics, ...i.candidate.metrics }).map((m) =>
        h("div", {}, `${m} ${score(i.base.metrics[m])} → ${score(i.candidate.metrics[m])}`)
      )
  }
]

/** `#/compare?base&candidate`: per-metric differences with paired intervals, then the questions that changed. */
export const comparePage = async (main: HTMLElement, base: string, candidate: string): Promise<void> => {
  const comparison = await compareRuns(base, candidate)
  const changed = comparison.items.filter((i) => i.change !== "same")
  const same = comparison.items.length - changed.length
  render(
    main,
    h("p", { class: "crumbs" }, link(href.runs(), "runs"), " / compare"),
    h("h1", {}, "Compare"),
    h(
      "p",
      { class: "sub" },
      "base ",
      link(href.run(comparison.base.id), runName(comparison.base)),
      " → candidate ",
      link(href.run(comparison.candidate.id), runName(comparison.candidate)),
      ` · ${comparison.paired} paired questions`,
      comparison.onlyBase + comparison.onlyCandidate === 0
        ? ""
        : ` · ${comparison.onlyBase} only in base, ${comparison.onlyCandidate} only in candidate`
    ),
    h("section", { class: "card" }, h("h2", {}, "Metrics"), metricRows(comparison)),
    h(
      "section",
      {},
      h(
        "h2",
        {},
        `Changed questions: ${changed.filter((i) => i.change === "regressed").length} regressed, ${
          changed.filter((i) => i.change === "improved").length
        } improved`,
        h("small", {}, ` · ${same} unchanged`)
      ),
      sortableTable(itemColumns(comparison.base.id, comparison.candidate.id), changed, {
        className: "changes",
        empty: "no question changed",
        rowClass: (i) => `change-${i.change}`
      }),
      same === 0 ? "" : h(
        "details",
        { class: "unchanged" },
        h("summary", {}, `${same} unchanged questions`),
        sortableTable(
          itemColumns(comparison.base.id, comparison.candidate.id),
          comparison.items.filter((i) => i.change === "same"),
          { className: "same" }
        )
      )
    )
  )
}
