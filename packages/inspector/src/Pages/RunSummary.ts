import { h } from "../Dom.js"
import { duration, num, pct, shortHash, show } from "../Format.js"
import type { Report, RunView } from "../Types.js"

/** The metrics with their 95% intervals. */
export const metricsTable = (report: Report): HTMLElement =>
  h(
    "table",
    { class: "metrics" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "metric"),
        h("th", { class: "num" }, "mean"),
        h("th", {}, "95% interval"),
        h("th", { class: "num" }, "n")
      )
    ),
    h(
      "tbody",
      {},
      report.metrics.map((m) =>
        h(
          "tr",
          {},
          h("td", { title: m.description }, m.name),
          h("td", { class: "num" }, pct(m.mean)),
          h("td", {}, m.ci === undefined ? "–" : `${pct(m.ci.low)} – ${pct(m.ci.high)}`),
          h("td", { class: "num" }, m.n)
        )
      )
    )
  )

/** Stop reasons as counts. */
export const stopReasons = (report: Report): HTMLElement =>
  h(
    "ul",
    { class: "stops" },
    Object.entries(report.stopReasons).sort((a, b) => b[1] - a[1]).map(([reason, n]) =>
      h("li", {}, h("code", {}, reason), ` ${n}`)
    )
  )

/** Steps, calls, tokens and time per question. */
export const costList = (report: Report): HTMLElement =>
  h(
    "dl",
    { class: "facts" },
    h("dt", {}, "steps / question"),
    h("dd", {}, num(report.cost.steps, 2)),
    h("dt", {}, "model calls / question"),
    h("dd", {}, num(report.cost.llmCalls, 2)),
    h("dt", {}, "retrievals / question"),
    h("dd", {}, num(report.cost.retrievals, 2)),
    h("dt", {}, "tokens / question"),
    h(
      "dd",
      {},
      report.cost.promptTokens === undefined
        ? "– (no model calls recorded)"
        : `${num(report.cost.promptTokens, 0)} in · ${num(report.cost.completionTokens, 0)} out`
    ),
    h("dt", {}, "time / question"),
    h("dd", {}, duration(report.cost.wallMs)),
    h("dt", {}, "gold-passage recall"),
    h(
      "dd",
      {},
      report.recall.n === 0
        ? "– (no gold passages)"
        : `${pct(report.recall.init)} → ${pct(report.recall.final)} (n=${report.recall.n})`
    )
  )

const manifestValue = (value: unknown): HTMLElement | string =>
  typeof value === "string" && /^[0-9a-f]{16,}$/iu.test(value) ? shortHash(value) : show(value)

/** What reproduces the run: config, dataset and collection, and the manifest's models, endpoints and hashes. */
export const manifestList = (run: RunView): HTMLElement => {
  const manifest = Object.entries(run.manifest ?? {}).filter(([k]) => k !== "config" && k !== "dataset")
  return h(
    "div",
    { class: "manifest" },
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "collection"),
      h("dd", {}, run.collection),
      h("dt", {}, "dataset"),
      h(
        "dd",
        {},
        shortHash(run.dataset.hash),
        ` · ${run.dataset.format ?? "?"} · ${run.dataset.count ?? "?"} questions`
      ),
      manifest.map(([k, v]) => [h("dt", {}, k), h("dd", {}, manifestValue(v))])
    ),
    h("details", {}, h("summary", {}, "config"), h("pre", {}, JSON.stringify(run.config, null, 2)))
  )
}
