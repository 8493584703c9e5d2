import { ApiFailure, clearApiKey, NeedsKey, setApiKey } from "./Api.js"
import { h, render } from "./Dom.js"
import { comparePage } from "./Pages/ComparePage.js"
import { pairPage, questionPage } from "./Pages/QuestionPage.js"
import { runPage } from "./Pages/RunPage.js"
import { runsPage } from "./Pages/RunsPage.js"
import { sweepPage } from "./Pages/SweepPage.js"
import { href, parseRoute } from "./Router.js"

const main = document.getElementById("main")!
let current = new AbortController()

/** Asks for an API key once (kept in sessionStorage for this tab), then shows the page again. */
const keyForm = (): HTMLElement => {
  const input = h("input", {
    type: "password",
    id: "api-key",
    autocomplete: "off",
    placeholder: "dn_…",
    required: true
  })
  return h(
    "form",
    {
      class: "card key-form",
      onsubmit: (event: Event) => {
        event.preventDefault()
        setApiKey(input.value.trim())
        show()
      }
    },
    h("h1", {}, "API key"),
    h("p", {}, "This server needs an API key (`deepnote keys create`). It is kept for this tab only."),
    input,
    h("button", { type: "submit" }, "Open")
  )
}

const failed = (error: unknown): HTMLElement =>
  h(
    "div",
    { class: "card error", role: "alert" },
    h("h1", {}, error instanceof ApiFailure ? `Error ${error.status}` : "Error"),
    h("p", {}, error instanceof Error ? error.message : String(error)),
    h("p", {}, h("a", { href: href.runs() }, "back to the runs"))
  )

/** Renders the page of the current hash; a newer navigation aborts the older page's streams. */
const show = (): void => {
  current.abort()
  const controller = new AbortController()
  current = controller
  const route = parseRoute(location.hash)
  // each navigation renders into its own element: a slower, older page then fills a detached one
  const target = h("div", { class: "page" }, h("p", { class: "sub" }, "loading…"))
  render(main, target)
  main.setAttribute("aria-busy", "true")
  delete main.dataset["page"]
  const reload = () => {
    if (!controller.signal.aborted) show()
  }
  const page = route.page === "runs"
    ? runsPage(target, route.pageSize)
    : route.page === "run"
    ? runPage(target, route.runId, controller.signal, reload)
    : route.page === "question"
    ? questionPage(target, route.runId, route.itemId)
    : route.page === "compare"
    ? comparePage(target, route.base, route.candidate)
    : route.page === "pair"
    ? pairPage(target, route.base, route.candidate, route.itemId)
    : route.page === "sweep"
    ? sweepPage(target, route.sweepId)
    : Promise.reject(new Error(`no page at ${route.hash}`))
  page.then(
    () => {
      if (!controller.signal.aborted) {
        main.setAttribute("aria-busy", "false")
        main.dataset["page"] = route.page
      }
    },
    (error: unknown) => {
      if (controller.signal.aborted) return
      if (error instanceof NeedsKey) clearApiKey()
      render(target, error instanceof NeedsKey ? keyForm() : failed(error))
      main.setAttribute("aria-busy", "false")
      main.dataset["page"] = error instanceof NeedsKey ? "key" : "error"
    }
  )
}

window.addEventListener("hashchange", show)
show()
