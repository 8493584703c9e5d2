import { h } from "../Dom.js"
import { duration, num, pct, shortHash } from "../Format.js"
import type { Report, RunManifest, RunView } from "../Types.js"

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

const hashOrDash = (hash: string | undefined): HTMLElement | string => hash === undefined ? "–" : shortHash(hash)

/** The models per role (`*`: every role), or what the engine is when it uses none. */
const modelsView = (run: RunView, manifest: RunManifest): HTMLElement | string => {
  const entries = Object.entries(manifest.models)
  if (entries.length === 0) return run.config.engine === "llm" ? "– (not recorded)" : "none (no language model)"
  return h("ul", { class: "models" }, entries.map(([role, model]) => h("li", {}, h("code", {}, role), ` ${model}`)))
}

const serversView = (manifest: RunManifest): HTMLElement | string =>
  manifest.servers.length === 0 ? "none" : h(
    "ul",
    { class: "endpoints" },
    manifest.servers.map((s) =>
      h(
        "li",
        {},
        h("code", {}, s.endpoint),
        s.maxModelLen === undefined ? "" : ` · max_model_len ${s.maxModelLen}`,
        (s.models?.length ?? 0) === 0 ? "" : ` · ${(s.models ?? []).join(", ")}`,
        s.version === undefined ? "" : ` · ${s.version}`
      )
    )
  )

/** What reproduces the run: engine, models per role, endpoints, prompt-set, config and collection hashes, dataset. */
export const manifestList = (run: RunView): HTMLElement => {
  const manifest = run.manifest
  return h(
    "div",
    { class: "manifest" },
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "engine"),
      h("dd", { "data-manifest": "engine" }, `${run.config.engine} · profile ${run.config.profile}`),
      h("dt", {}, "collection"),
      h("dd", {}, run.collection),
      h("dt", {}, "dataset"),
      h(
        "dd",
        {},
        shortHash(run.dataset.hash),
        ` · ${run.dataset.format ?? "?"} · ${run.dataset.count ?? "?"} questions`
      ),
      manifest === undefined ? "" : [
        h("dt", {}, "models"),
        h("dd", { "data-manifest": "models" }, modelsView(run, manifest)),
        h("dt", {}, "endpoints"),
        h("dd", { "data-manifest": "endpoints" }, serversView(manifest)),
        h("dt", {}, "prompt set"),
        h("dd", { "data-manifest": "prompt-set" }, hashOrDash(manifest.promptSetHash)),
        h("dt", {}, "collection fingerprint"),
        h("dd", { "data-manifest": "collection-fingerprint" }, hashOrDash(manifest.collectionFingerprint)),
        h("dt", {}, "retriever"),
        h(
          "dd",
          { "data-manifest": "retriever" },
          `${String(run.config["retriever"] ?? "bm25")}${
            manifest.embeddings === undefined
              ? ""
              : ` · embeddings ${manifest.embeddings.model} (${manifest.embeddings.dimensions}-d)`
          }`
        ),
        h("dt", {}, "config hash"),
        h("dd", {}, shortHash(manifest.configHash)),
        h("dt", {}, "code"),
        h("dd", {}, manifest.codeVersion)
      ]
    ),
    h("details", {}, h("summary", {}, "config"), h("pre", {}, JSON.stringify(run.config, null, 2)))
  )
}
