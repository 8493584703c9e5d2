import { defaultRunConfig, Home, RunConfig } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import { createRun as createSweepRun, enqueueRun, WorkQueue } from "@deepnote-rag/runs"
import { Sweeps } from "@deepnote-rag/store"
import { HttpClientRequest } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schedule, Schema } from "effect"
import * as Fs from "node:fs"
import { serverStoreLayer } from "../src/index.js"
import { browserAvailable, launchBrowser, openPage, type Watched, watchedPage } from "./Browser.js"
import { baseUrl, makeHome, raw, sampleQuestions, seedCollection, settings, testServer } from "./Harness.js"

interface Run {
  readonly id: string
  readonly active: boolean
  readonly counts: { readonly total: number; readonly done: number }
}
interface Item {
  readonly itemId: string
  readonly result?: {
    readonly trace: {
      readonly passages: ReadonlyArray<{ readonly passage: { readonly id: string; readonly title: string } }>
      readonly notes: ReadonlyArray<{ readonly step: number; readonly verdict?: { readonly better: boolean } }>
      readonly queries: ReadonlyArray<{ readonly step: number }>
    }
    readonly stopReason: string
  }
  readonly goldTitles?: ReadonlyArray<string>
  readonly goldPassageIds: ReadonlyArray<string>
}

/** Four sample questions as HotpotQA records; the first names its gold (supporting) passages. */
const dataset = Fs.readFileSync(sampleQuestions, "utf8").split("\n").filter((l) => l.trim() !== "").slice(0, 4)
  .map((line, i) => {
    const q = JSON.parse(line) as { id: string; question: string; answers: Array<string> }
    const gold = i === 0 ? [["Kiss and Tell (1945 film)", 0], ["Shirley Temple", 0]] : []
    return JSON.stringify({
      _id: q.id,
      question: q.question,
      answer: q.answers[0],
      supporting_facts: gold,
      context: [],
      type: "bridge",
      level: "hard"
    })
  }).join("\n")

const json = <A>(path: string) =>
  raw(HttpClientRequest.get(path)).pipe(Effect.map((r) => {
    assert.strictEqual(r.status, 200, `${path}: ${r.text}`)
    return JSON.parse(r.text) as A
  }))

const createRun = (config: Record<string, unknown>, label: string) =>
  raw(
    HttpClientRequest.post("/v1/runs").pipe(
      HttpClientRequest.bodyUnsafeJson({ collection: "sample", jsonl: dataset, label, config })
    )
  ).pipe(Effect.map((r) => {
    assert.strictEqual(r.status, 202, r.text)
    return JSON.parse(r.text) as Run
  }))

const finished = (id: string) =>
  json<Run>(`/v1/runs/${id}`).pipe(
    Effect.filterOrFail((run) => !run.active, () => "still running"),
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeout("120 seconds")
  )

/**
 * A sweep of two cells whose runs are queued for workers, as `deepnote run --sweep --enqueue` leaves them: the next
 * server's workers execute them.
 */
const makeSweep = (home: string) =>
  Effect.gen(function*() {
    const sweep = yield* (yield* Sweeps).create({
      grid: { cells: [{ maxStep: 2 }, { maxStep: 3 }], knobs: { maxStep: [2, 3] } },
      label: "steps"
    })
    const runIds: Array<string> = []
    for (const [index, maxStep] of [2, 3].entries()) {
      const config = Schema.decodeUnknownSync(RunConfig)({ ...Schema.encodeSync(RunConfig)(defaultRunConfig), maxStep })
      const { run } = yield* createSweepRun({
        dataset: sampleQuestions,
        limit: 3,
        config,
        collection: "sample",
        promptSetHash: promptSetHash(config),
        sweep: { sweepId: sweep.id, index, cell: { maxStep } },
        execution: "queue"
      })
      yield* enqueueRun(run.id)
      runIds.push(run.id)
    }
    return { sweepId: sweep.id, runIds }
  }).pipe(
    Effect.provide(
      WorkQueue.layerConfig.pipe(
        Layer.provideMerge(Layer.mergeAll(serverStoreLayer(undefined), NodeContext.layer)),
        Layer.provide(Home.layer(home))
      )
    )
  )

/** The timeline's steps as the page shows them, and as the API's trace has them. */
const timelineSteps = (watched: Watched, item: Item) =>
  Effect.gen(function*() {
    const trace = item.result!.trace
    const expected = [...new Set([...trace.queries, ...trace.notes].map((e) => e.step))].sort()
    const shown = yield* Effect.promise(() =>
      watched.page.locator(".timeline .step").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-step"))))
    )
    return { shown, expected }
  })

const noLeaks = (watched: Watched) => {
  assert.deepStrictEqual(watched.errors, [])
  assert.deepStrictEqual(watched.foreign, [])
}

const text = (watched: Watched, selector: string) =>
  Effect.promise(() => watched.page.locator(selector).allTextContents())
const count = (watched: Watched, selector: string) => Effect.promise(() => watched.page.locator(selector).count())

describe.skipIf(!browserAvailable())("run inspector pages in Chromium", () => {
  it.scopedLive(
    "runs, a finished run, a running run and a question's timeline; no console error, nothing leaves 127.0.0.1",
    () =>
      Effect.gen(function*() {
        const home = yield* makeHome
        yield* seedCollection(home, "sample")
        // a finished run, made by a server with workers; then a server without workers holds the next run's questions
        // an executed sweep: its cells' runs are queued for the workers of the server that executes the runs below
        const sweep = yield* makeSweep(home)
        const [done, other, renact] = yield* Effect.gen(function*() {
          // the sweep's two runs count against the tenant's limit of runs in flight (2): they finish first
          for (const id of sweep.runIds) yield* finished(id)
          const a = yield* createRun({ maxStep: 2 }, "finished")
          const b = yield* createRun({ maxStep: 1, maxFailure: 1, topK: 2 }, "other")
          const ended = [yield* finished(a.id), yield* finished(b.id)] as const
          // another profile: the pages have no profile-specific code
          const c = yield* createRun({ profile: "renact", maxStep: 2 }, "renact")
          return [...ended, yield* finished(c.id)] as const
        }).pipe(Effect.provide(testServer(home, settings({ auth: false }))), Effect.scoped)
        assert.strictEqual(done.counts.done, 4)
        assert.strictEqual(renact.counts.done, 4)

        yield* Effect.gen(function*() {
          const url = yield* baseUrl
          const held = yield* createRun({ maxStep: 3 }, "held")
          assert.isTrue(held.active)
          const browser = yield* launchBrowser
          const watched = yield* watchedPage(browser)

          yield* openPage(watched, `${url}/ui`, "runs")
          const names = yield* text(watched, "table.runs td[data-label=run] a")
          assert.includeMembers(names, ["finished", "held"])
          // a run's metric, once filled, stays when a header click sorts the table again
          const finishedMetric = watched.page.locator("table.runs tr", { hasText: "finished" }).locator(".metric-cell")
          yield* Effect.promise(() => finishedMetric.filter({ hasText: /^f1 / }).waitFor())
          yield* Effect.promise(() => watched.page.locator("table.runs th", { hasText: "status" }).click())
          assert.match(yield* Effect.promise(() => finishedMetric.innerText()), /^f1 /)
          // paged: two runs at a time, newest first ("held", "renact"); "older runs" adds the next page
          yield* openPage(watched, `${url}/ui/#/runs?limit=2`, "runs")
          assert.deepStrictEqual(yield* text(watched, "table.runs td[data-label=run] a"), ["held", "renact"])
          yield* Effect.promise(() => watched.page.locator("button.older-runs").click())
          yield* Effect.promise(() => watched.page.locator("table.runs tbody tr").nth(3).waitFor())
          assert.deepStrictEqual(yield* text(watched, "table.runs td[data-label=run] a"), [
            "held",
            "renact",
            "other",
            "finished"
          ])

          yield* openPage(watched, `${url}/ui/#/runs/${done.id}`, "run")
          // runs to compare with: the others over the same dataset, newest first (the server filters by its hash)
          assert.deepStrictEqual(yield* text(watched, "p.compare-with a"), ["held", "renact", "other"])
          assert.strictEqual(yield* count(watched, "table.questions tbody tr"), 4)
          assert.isAbove(yield* count(watched, "table.metrics tbody tr"), 0)
          // the manifest: engine, models (none for the extractive engine), prompt-set and collection hashes
          assert.deepStrictEqual(yield* text(watched, "[data-manifest=models]"), ["none (no language model)"])
          assert.strictEqual((yield* text(watched, "[data-manifest=prompt-set] code"))[0]?.length, 12)
          assert.strictEqual((yield* text(watched, "[data-manifest=collection-fingerprint] code"))[0]?.length, 12)
          // per-question scores from the results endpoint: one column per metric, a "wrong" filter
          assert.includeMembers(yield* text(watched, "table.questions thead th"), ["f1", "em", "acc"])
          const wrong = (yield* text(watched, "#filter option[value=wrong]"))[0] ?? ""
          assert.match(wrong, /^wrong: f1 = 0 \(\d\)$/)
          yield* Effect.promise(() => watched.page.selectOption("#filter", "wrong"))
          const wrongRows = Number(/\((\d)\)/.exec(wrong)?.[1])
          if (wrongRows > 0) assert.strictEqual(yield* count(watched, "table.questions tbody tr"), wrongRows)
          yield* Effect.promise(() => watched.page.selectOption("#filter", "failed"))
          assert.deepStrictEqual(yield* text(watched, "table.questions td.empty"), ["no question matches"])

          yield* openPage(watched, `${url}/ui/#/runs/${held.id}`, "run")
          yield* Effect.promise(() => watched.page.waitForSelector("#live .progress-label"))
          assert.deepStrictEqual(yield* text(watched, "#live .progress-label"), ["0/4"])

          // the first question's timeline: its steps, verdicts and gold marks as the API reports them
          const results = yield* json<{ items: ReadonlyArray<Item> }>(`/v1/runs/${done.id}/results`)
          const first = results.items[0]!
          const item = yield* json<Item>(`/v1/runs/${done.id}/items/${first.itemId}`)
          const trace = item.result!.trace
          yield* openPage(watched, `${url}/ui/#/runs/${done.id}/items/${first.itemId}`, "question")
          const steps = yield* timelineSteps(watched, item)
          assert.deepStrictEqual(steps.shown, steps.expected)
          const verdicts = yield* Effect.promise(() =>
            watched.page.locator("[data-verdict]").evaluateAll((els) => els.map((e) => e.getAttribute("data-verdict")))
          )
          assert.deepStrictEqual(
            verdicts,
            trace.notes.flatMap((n) => n.verdict === undefined ? [] : [n.verdict.better ? "better" : "worse"])
          )
          assert.deepStrictEqual(yield* text(watched, "[data-stop] code"), [item.result!.stopReason])
          // gold marks by the ids the server's `isGold` accepted, never by title alone
          assert.isAbove((item.goldTitles ?? []).length, 0)
          const gold = new Set(item.goldPassageIds)
          const goldRead = trace.passages.filter((p) => gold.has(p.passage.id)).length
          assert.isAbove(goldRead, 0)
          assert.strictEqual(yield* count(watched, ".passage[data-gold]"), goldRead)
          // the stored trace id (no trace file in this home: no command to open it)
          assert.strictEqual((yield* text(watched, "[data-trace] code"))[0]?.length, 32)
          assert.strictEqual(yield* count(watched, ".trace-command"), 0)

          // a renact run's question: the same timeline, steps as its trace has them
          const renactItems = yield* json<{ items: ReadonlyArray<Item> }>(`/v1/runs/${renact.id}/results`)
          const renactItem = yield* json<Item>(`/v1/runs/${renact.id}/items/${renactItems.items[0]!.itemId}`)
          yield* openPage(watched, `${url}/ui/#/runs/${renact.id}/items/${renactItem.itemId}`, "question")
          const renactSteps = yield* timelineSteps(watched, renactItem)
          assert.isAbove(renactSteps.shown.length, 0)
          assert.deepStrictEqual(renactSteps.shown, renactSteps.expected)
          assert.deepStrictEqual(yield* text(watched, "[data-stop] code"), [renactItem.result!.stopReason])

          // a phone-width screen: the question table becomes stacked cards
          const phone = yield* watchedPage(browser, { width: 390, height: 844 })
          yield* openPage(phone, `${url}/ui/#/runs/${done.id}`, "run")
          const display = yield* Effect.promise(() =>
            phone.page.evaluate("getComputedStyle(document.querySelector('table.questions thead')).display")
          )
          assert.strictEqual(display, "none")
          // compare: the metric differences, then a question of both runs side by side
          yield* openPage(watched, `${url}/ui/#/compare?base=${done.id}&candidate=${other.id}`, "compare")
          assert.isAbove(yield* count(watched, "table.diff-metrics tbody tr"), 0)
          yield* Effect.promise(() =>
            watched.page.locator("details.unchanged").evaluateAll((els) =>
              els.forEach((e) => e.setAttribute("open", ""))
            )
          )
          yield* Effect.promise(() => watched.page.locator("td[data-label=question] a").first().click())
          yield* Effect.promise(() => watched.page.waitForSelector(`main[data-page="pair"][aria-busy="false"]`))
          assert.strictEqual(yield* count(watched, ".side-by-side .question-view"), 2)
          assert.isAbove(yield* count(watched, ".side-by-side .timeline .step"), 1)

          // an executed sweep: each cell's run and metrics, and every cell against the first with its intervals
          yield* openPage(watched, `${url}/ui/#/sweeps/${sweep.sweepId}`, "sweep")
          assert.deepStrictEqual(yield* text(watched, "ul.cells li > a"), sweep.runIds)
          yield* Effect.promise(() => watched.page.waitForSelector(".cell-metrics .cell-metric"))
          yield* Effect.promise(() =>
            watched.page.waitForFunction(
              "document.querySelectorAll('.cell-metrics .cell-metric[data-metric=f1]').length === 2"
            )
          )
          yield* Effect.promise(() => watched.page.waitForSelector("table.sweep-diff tbody tr"))
          assert.strictEqual(yield* count(watched, "table.sweep-diff tbody tr"), 1)
          const diffLink = yield* Effect.promise(() =>
            watched.page.locator("table.sweep-diff td[data-label=cell] a").getAttribute("href")
          )
          assert.strictEqual(diffLink, `#/compare?base=${sweep.runIds[0]}&candidate=${sweep.runIds[1]}`)
          const f1 = (yield* text(watched, "table.sweep-diff td[data-label='Δ f1']"))[0] ?? ""
          assert.match(f1, /^[+−-]?\d.* \[[+−-]?\d.*, [+−-]?\d.*\]$/)
          yield* Effect.promise(() => watched.page.locator("table.sweep-diff td[data-label=cell] a").click())
          yield* Effect.promise(() => watched.page.waitForSelector(`main[data-page="compare"][aria-busy="false"]`))
          assert.isAbove(yield* count(watched, "table.diff-metrics tbody tr"), 0)
          yield* openPage(watched, `${url}/ui/#/runs`, "runs")
          assert.strictEqual(yield* count(watched, "section.sweep"), 1)
          // each executed cell shows its headline metric, filled from its report
          const cellMetrics = watched.page.locator("section.sweep .metric-cell", { hasText: /^f1 / })
          yield* Effect.promise(() => cellMetrics.nth(1).waitFor())
          assert.strictEqual(yield* Effect.promise(() => cellMetrics.count()), 2)
          // sweeps are paged too: a newer sweep (no cell started) first, "older sweeps" adds the executed one
          yield* Effect.flatMap(Sweeps, (sweeps) => sweeps.create({ grid: { topK: [2, 4] }, label: "later" })).pipe(
            Effect.provide(
              Layer.mergeAll(serverStoreLayer(undefined), NodeContext.layer).pipe(Layer.provide(Home.layer(home)))
            )
          )
          yield* openPage(watched, `${url}/ui/#/runs?limit=1`, "runs")
          assert.deepStrictEqual(yield* text(watched, "section.sweep h3 > a:first-child"), ["sweep later"])
          yield* Effect.promise(() => watched.page.locator("button.older-sweeps").click())
          yield* Effect.promise(() => watched.page.locator("section.sweep").nth(1).waitFor())
          assert.deepStrictEqual(yield* text(watched, "section.sweep h3 > a:first-child"), [
            "sweep later",
            "sweep steps"
          ])
          assert.isTrue(yield* Effect.promise(() => watched.page.locator("button.older-sweeps").isHidden()))

          noLeaks(watched)
          noLeaks(phone)
        }).pipe(Effect.provide(testServer(home, settings({ auth: false, workers: 0 }))))
      }),
    { timeout: 360_000 }
  )
})
