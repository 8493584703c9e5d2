import { allResults, followEvents, listRunsPage } from "../Api.js"
import { h, link, render } from "../Dom.js"
import { badge, duration, progress, score, when } from "../Format.js"
import { runName } from "../Knobs.js"
import { href } from "../Router.js"
import { type Column, sortableTable } from "../Table.js"
import type { ItemView, RunView } from "../Types.js"
import { costList, manifestList, metricsTable, stopReasons } from "./RunSummary.js"

interface Row {
  readonly item: ItemView
  /** Scores 0–1 from the server (`scores=true`: as the comparison counts them). */
  readonly metrics: Readonly<Record<string, number>>
}

/** The metric that decides "wrong": F1 when reported, else accuracy or exact match. */
const primary = (rows: ReadonlyArray<Row>): string | undefined => {
  const names = new Set(rows.flatMap((r) => Object.keys(r.metrics)))
  return ["f1", "acc", "em"].find((n) => names.has(n)) ?? [...names][0]
}

type Filter = "all" | "failed" | "wrong" | `stop:${string}`

const matches = (row: Row, filter: Filter, metric: string | undefined): boolean => {
  if (filter === "all") return true
  if (filter === "failed") return row.item.status === "failed"
  if (filter === "wrong") return metric !== undefined && row.item.status === "done" && (row.metrics[metric] ?? 0) === 0
  return row.item.result?.stopReason === filter.slice(5)
}

const columns = (runId: string, metricNames: ReadonlyArray<string>): ReadonlyArray<Column<Row>> => [
  { label: "#", sort: (r) => r.item.seq, cell: (r) => r.item.seq, numeric: true },
  {
    label: "question",
    sort: (r) => r.item.question,
    cell: (r) => link(href.question(runId, r.item.itemId), r.item.question)
  },
  { label: "status", sort: (r) => r.item.status, cell: (r) => badge(r.item.status) },
  { label: "answer", cell: (r) => r.item.answer ?? r.item.error?.message ?? "" },
  { label: "gold", cell: (r) => r.item.gold.join(" | ") },
  ...metricNames.map((m): Column<Row> => ({
    label: m,
    numeric: true,
    sort: (r) => r.metrics[m] ?? -1,
    cell: (r) => score(r.metrics[m])
  })),
  { label: "stop", sort: (r) => r.item.result?.stopReason ?? "", cell: (r) => r.item.result?.stopReason ?? "" },
  {
    label: "steps",
    numeric: true,
    sort: (r) => r.item.result?.counters.steps ?? -1,
    cell: (r) => r.item.result?.counters.steps ?? ""
  },
  {
    label: "calls",
    numeric: true,
    sort: (r) => r.item.result?.counters.llm.total ?? -1,
    cell: (r) => r.item.result?.counters.llm.total ?? ""
  },
  {
    label: "time",
    numeric: true,
    sort: (r) => r.item.result?.elapsedMs ?? -1,
    cell: (r) => duration(r.item.result?.elapsedMs)
  }
]

const questionTable = (runId: string, rows: ReadonlyArray<Row>): HTMLElement => {
  const metric = primary(rows)
  const metricNames = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))]
  const stops = [...new Set(rows.flatMap((r) => r.item.result?.stopReason ?? []))].sort()
  const holder = h("div", {})
  const select = h(
    "select",
    { id: "filter", "aria-label": "filter questions" },
    h("option", { value: "all" }, `all (${rows.length})`),
    h("option", { value: "failed" }, `failed (${rows.filter((r) => matches(r, "failed", metric)).length})`),
    metric === undefined
      ? ""
      : h(
        "option",
        { value: "wrong" },
        `wrong: ${metric} = 0 (${rows.filter((r) => matches(r, "wrong", metric)).length})`
      ),
    stops.map((s) =>
      h("option", { value: `stop:${s}` }, `stop: ${s} (${rows.filter((r) => matches(r, `stop:${s}`, metric)).length})`)
    )
  )
  const draw = () => {
    const filter = select.value as Filter
    render(
      holder,
      sortableTable(columns(runId, metricNames), rows.filter((r) => matches(r, filter, metric)), {
        className: "questions",
        empty: "no question matches",
        rowClass: (r) => `status-${r.item.status}`
      })
    )
  }
  select.addEventListener("change", draw)
  draw()
  return h("section", {}, h("h2", {}, "Questions ", h("label", { class: "filter" }, "show ", select)), holder)
}

/** Live progress of a running run: the bar and the latest events, from the event stream; reloads at its end. */
const liveProgress = (run: RunView, signal: AbortSignal, reload: () => void): HTMLElement => {
  const bar = h("span", {}, progress(run.counts.done, run.counts.failed, run.counts.total))
  const log = h("ol", { class: "live-log", reversed: true })
  let counts = { ...run.counts }
  const box = h(
    "section",
    { class: "live card", id: "live" },
    h("h2", {}, "Live ", h("span", { class: "pulse" }, "●")),
    bar,
    log
  )
  void followEvents(run.id, (message) => {
    if (message.event === "end") {
      reload()
      return
    }
    const parsed = JSON.parse(message.data) as { itemId: string; event: { _tag: string; step: number } }
    if (parsed.event._tag === "Answered") counts = { ...counts, done: counts.done + 1 }
    if (parsed.event._tag === "Failed") counts = { ...counts, failed: counts.failed + 1 }
    render(bar, progress(counts.done, counts.failed, counts.total))
    log.prepend(h("li", {}, h("code", {}, parsed.itemId), ` step ${parsed.event.step} · ${parsed.event._tag}`))
    while (log.childElementCount > 8) log.lastElementChild?.remove()
  }, signal).catch(() => undefined)
  return box
}

/** How many runs over the same dataset a run's page offers to compare with. */
const compareChoices = 6

/** `#/runs/{id}`: a run's metrics, cost, manifest, questions, and its live progress while it runs. */
export const runPage = async (main: HTMLElement, runId: string, signal: AbortSignal, reload: () => void) => {
  const results = await allResults(runId, { scores: true })
  const run = results.run
  // runs to compare with: the newest few over the same dataset (the server filters by its hash)
  const others = await listRunsPage(compareChoices + 1, undefined, { dataset: run.dataset.hash }).then(
    (page) => page.runs,
    () => [] as ReadonlyArray<RunView>
  )
  const rows = results.items.map((item): Row => ({ item, metrics: item.metrics ?? {} }))
  const report = results.report
  const compareWith = others.filter((o) => o.id !== run.id).slice(0, compareChoices)
  render(
    main,
    h("p", { class: "crumbs" }, link(href.runs(), "runs"), " / ", run.id),
    h("h1", {}, runName(run), " ", badge(run.state)),
    h(
      "p",
      { class: "sub" },
      `${run.config.profile} · ${run.config.engine} · ${run.collection} · created ${when(run.createdAt)}`,
      run.finishedAt === undefined ? "" : ` · finished ${when(run.finishedAt)}`,
      run.sweepId === undefined ? "" : [" · ", link(href.sweep(run.sweepId), "sweep")],
      run.message === undefined ? "" : h("div", { class: "message" }, run.message)
    ),
    run.active
      ? liveProgress(run, signal, reload)
      : h("p", {}, progress(run.counts.done, run.counts.failed, run.counts.total)),
    compareWith.length === 0 ? "" : h(
      "p",
      { class: "compare-with" },
      "compare with: ",
      compareWith.map((o) => [link(href.compare(run.id, o.id), runName(o)), " "])
    ),
    h(
      "div",
      { class: "grid" },
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Metrics"),
        report === undefined
          ? "–"
          : [
            metricsTable(report),
            report.partial
              ? h("p", { class: "sub" }, `partial: ${report.counts.finished} of ${report.counts.total} finished`)
              : ""
          ]
      ),
      h("section", { class: "card" }, h("h2", {}, "Cost per question"), report === undefined ? "–" : costList(report)),
      h("section", { class: "card" }, h("h2", {}, "Stop reasons"), report === undefined ? "–" : stopReasons(report)),
      h("section", { class: "card" }, h("h2", {}, "Manifest"), manifestList(run))
    ),
    questionTable(run.id, rows)
  )
}
