import { allResults, ApiFailure, getItem } from "../Api.js"
import { h, link, render } from "../Dom.js"
import { badge, duration, score } from "../Format.js"
import { href } from "../Router.js"
import type { ItemDetail } from "../Types.js"
import { timeline } from "./Timeline.js"

/** The item with its scores; from the run's results when the server has no item endpoint (no scores then). */
const loadItem = async (runId: string, itemId: string): Promise<ItemDetail> => {
  try {
    return await getItem(runId, itemId)
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 404) throw error
    const results = await allResults(runId)
    const item = results.items.find((i) => i.itemId === itemId)
    if (item === undefined) throw error
    return { ...item, metrics: {} }
  }
}

const answerBlock = (item: ItemDetail): HTMLElement =>
  h(
    "section",
    { class: "card answer" },
    h("h2", {}, "Answer"),
    item.answer === undefined
      ? h(
        "p",
        { class: "sub" },
        item.error === undefined ? "not answered yet" : `${item.error.tag}: ${item.error.message}`
      )
      : h("p", { class: "answer-text" }, item.answer),
    h("h3", {}, "gold answers"),
    item.gold.length === 0
      ? h("p", { class: "sub" }, "none in the dataset")
      : h("ul", {}, item.gold.map((g) => h("li", {}, g))),
    (item.goldTitles?.length ?? 0) === 0 ? "" : [
      h("h3", {}, "gold passages"),
      h(
        "p",
        { class: "gold-titles" },
        (item.goldTitles ?? []).join(" · "),
        h("small", {}, ` (${item.goldPassageIds?.length ?? 0} read, marked ★ below)`)
      )
    ],
    Object.keys(item.metrics).length === 0 ? "" : h(
      "dl",
      { class: "facts scores" },
      Object.entries(item.metrics).map(([name, value]) => [h("dt", {}, name), h("dd", {}, score(value))])
    )
  )

/** The question's trace: its id, and the command that shows it when the run's trace was recorded. */
const traceLine = (item: ItemDetail): HTMLElement | string =>
  item.traceId === undefined ? "" : h(
    "p",
    { class: "trace", "data-trace": item.traceId },
    "trace ",
    h("code", {}, item.traceId),
    item.traceCommand === undefined
      ? h("small", {}, " (no trace file of this run in the home; an OTLP backend the run exported to has it)")
      : [" · open it with ", h("code", { class: "trace-command" }, item.traceCommand)]
  )

/** One question: its status, the note's evolution and the answer against the gold answers. */
export const questionView = async (runId: string, itemId: string): Promise<HTMLElement> => {
  const item = await loadItem(runId, itemId)
  const result = item.result
  return h(
    "article",
    { class: "question-view", "data-item": item.itemId },
    h("h1", {}, item.question),
    h(
      "p",
      { class: "sub" },
      badge(item.status),
      ` · ${item.itemId} in `,
      link(href.run(runId), runId),
      result === undefined
        ? ""
        : ` · ${result.profile} · ${result.counters.steps} steps · ${result.counters.llm.total} calls · ${result.counters.retrievals} retrievals · ${
          duration(result.elapsedMs)
        }`
    ),
    traceLine(item),
    answerBlock(item),
    result === undefined
      ? h("p", { class: "sub" }, "no trace yet")
      : h("section", { class: "card" }, h("h2", {}, "Timeline"), timeline(result, item.goldPassageIds ?? []))
  )
}

/** `#/runs/{id}/items/{itemId}`. */
export const questionPage = async (main: HTMLElement, runId: string, itemId: string): Promise<void> => {
  const view = await questionView(runId, itemId)
  render(
    main,
    h("p", { class: "crumbs" }, link(href.runs(), "runs"), " / ", link(href.run(runId), runId), " / ", itemId),
    view
  )
}

/** `#/compare/items/{itemId}?base&candidate`: both runs' timelines of one question side by side. */
export const pairPage = async (main: HTMLElement, base: string, candidate: string, itemId: string): Promise<void> => {
  const [left, right] = await Promise.all([questionView(base, itemId), questionView(candidate, itemId)])
  render(
    main,
    h(
      "p",
      { class: "crumbs" },
      link(href.runs(), "runs"),
      " / ",
      link(href.compare(base, candidate), "compare"),
      " / ",
      itemId
    ),
    h(
      "div",
      { class: "side-by-side" },
      h("div", { class: "side base" }, h("h2", {}, "base ", link(href.run(base), base)), left),
      h("div", { class: "side candidate" }, h("h2", {}, "candidate ", link(href.run(candidate), candidate)), right)
    )
  )
}
