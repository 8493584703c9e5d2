import { wordDiff } from "../Diff.js"
import { h } from "../Dom.js"
import type { Passage, PipelineResult } from "../Types.js"

const diffView = (before: string, after: string): HTMLElement =>
  h(
    "p",
    { class: "diff" },
    wordDiff(before, after).map((part) =>
      part.kind === "same" ? part.text : h(part.kind === "add" ? "ins" : "del", {}, part.text)
    )
  )

const passageView = (passage: Passage, gold: ReadonlySet<string>): HTMLElement => {
  const isGold = gold.has(passage.id)
  return h(
    "li",
    { class: isGold ? "passage gold" : "passage", "data-gold": isGold ? "true" : undefined },
    isGold ? h("span", { class: "gold-mark", title: "a gold passage of this question" }, "★ gold") : "",
    h("strong", {}, passage.title || passage.id),
    h("small", {}, ` ${passage.source} · score ${passage.score.toFixed(2)}`),
    h("div", { class: "passage-text" }, passage.text)
  )
}

/**
 * The note's evolution, one entry per step: the planned queries, the passages read (gold ones marked), the rewritten
 * note as a diff against the best note before it, the judge's verdict; the stop reason closes the timeline. Gold
 * passages are the ids the server marked gold (by id, or by title and text together — never by title alone).
 */
export const timeline = (result: PipelineResult, goldPassageIds: ReadonlyArray<string>): HTMLElement => {
  const gold = new Set(goldPassageIds)
  const steps = [
    ...new Set([
      ...result.trace.queries.map((q) => q.step),
      ...result.trace.passages.map((p) => p.step),
      ...result.trace.notes.map((n) => n.step)
    ])
  ].sort((a, b) => a - b)
  let best = ""
  const entries = steps.map((step) => {
    const queries = result.trace.queries.filter((q) => q.step === step)
    const passages = result.trace.passages.filter((p) => p.step === step)
    const notes = result.trace.notes.filter((n) => n.step === step)
    const before = best
    const view = h(
      "li",
      { class: "step", "data-step": step },
      h("h3", {}, step === 0 ? "Step 0 · initial note" : `Step ${step}`),
      queries.length === 0 ? "" : h(
        "div",
        { class: "queries" },
        h("h4", {}, "queries"),
        h("ul", {}, queries.map((q) => h("li", {}, h("code", {}, q.query))))
      ),
      passages.length === 0 ? "" : h(
        "details",
        { class: "passages", open: passages.some((p) => gold.has(p.passage.id)) },
        h(
          "summary",
          {},
          `${passages.length} passages read`,
          gold.size === 0 ? "" : ` · ${passages.filter((p) => gold.has(p.passage.id)).length} gold`
        ),
        h("ol", {}, passages.map((p) => passageView(p.passage, gold)))
      ),
      notes.map((n) => {
        const verdict = n.verdict
        const accepted = verdict === undefined ? true : verdict.better
        if (n.best) best = n.note.text
        return h(
          "div",
          { class: "note" },
          h("h4", {}, step === 0 ? "note" : "rewritten note (diff against the best note)"),
          step === 0 ? h("p", {}, n.note.text) : diffView(before, n.note.text),
          verdict === undefined ? "" : h(
            "p",
            { class: `verdict ${accepted ? "better" : "worse"}`, "data-verdict": accepted ? "better" : "worse" },
            accepted ? "✔ judge: better — it becomes the best note" : "✘ judge: not better — the best note stays",
            h("small", {}, ` (${verdict.parsed})`),
            verdict.raw === undefined
              ? ""
              : h("details", {}, h("summary", {}, "judge's reply"), h("pre", {}, verdict.raw))
          )
        )
      })
    )
    return view
  })
  return h(
    "div",
    { class: "timeline-wrap" },
    h("ol", { class: "timeline" }, entries),
    h("p", { class: "stop", "data-stop": result.stopReason }, "stopped: ", h("code", {}, result.stopReason))
  )
}
