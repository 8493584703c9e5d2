import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import {
  clientWith,
  createKey,
  homeWithTenant,
  makeHome,
  raw,
  sampleQuestions,
  seedCollection,
  testServer
} from "./Harness.js"
import { takeEvents } from "./Sse.js"

const questions = Fs.readFileSync(sampleQuestions, "utf8")

describe("runs over HTTP", () => {
  it.scopedLive("create, SSE with Last-Event-ID reconnection (no duplicate or missing events), results and report", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      return yield* Effect.gen(function*() {
        const client = yield* clientWith(key)
        const run = yield* client.runs.create({
          payload: { collection: "wiki", jsonl: questions, concurrency: 2, config: { maxStep: 2 } },
          urlParams: {}
        })
        assert.strictEqual(run.collection, "wiki")
        assert.isTrue(run.active)
        const total = run.counts.total
        assert.isAbove(total, 5)

        const events = (lastEventId?: string) =>
          HttpClientRequest.get(`/v1/runs/${run.id}/events`).pipe(
            HttpClientRequest.bearerToken(key),
            lastEventId === undefined ? (r) => r : HttpClientRequest.setHeader("last-event-id", lastEventId)
          )
        const first = yield* takeEvents(events(), 7)
        assert.strictEqual(first.length, 7)
        const second = yield* takeEvents(events(first[first.length - 1]!.id), 100_000)
        assert.strictEqual(second[second.length - 1]!.event, "end")
        const all = yield* takeEvents(events(), 100_000)
        const ids = (list: ReadonlyArray<{ readonly id: string | undefined }>) =>
          list.flatMap((e) => e.id === undefined ? [] : [Number(e.id)])
        assert.deepStrictEqual([...ids(first), ...ids(second)], ids(all))
        assert.strictEqual(new Set(ids(all)).size, ids(all).length)
        const answered = all.filter((e) => e.event === "Answered").map((e) => JSON.parse(e.data).itemId as string)
        assert.strictEqual(new Set(answered).size, total)
        const end = JSON.parse(all[all.length - 1]!.data)
        assert.strictEqual(end.status, "completed")

        const done = yield* client.runs.get({ path: { id: run.id } })
        assert.strictEqual(done.counts.done, total)
        const results = yield* client.runs.results({ path: { id: run.id }, urlParams: {} })
        assert.strictEqual(results.items.length, total)
        assert.isTrue(results.items.every((i) => i.status === "done" && i.answer !== undefined))
        assert.strictEqual(results.report?.counts.done, total)
        const page = yield* client.runs.results({ path: { id: run.id }, urlParams: { limit: 2, report: "false" } })
        assert.strictEqual(page.items.length, 2)
        assert.isDefined(page.nextAfter)
        assert.isUndefined(page.report)
        assert.deepStrictEqual((yield* client.runs.list({ urlParams: {} })).runs.map((r) => r.id), [run.id])
      }).pipe(Effect.provide(testServer(home)))
    }))

  it.scopedLive("tenant isolation: another tenant's runs and collections are 404, never listed", () =>
    Effect.gen(function*() {
      const home = yield* makeHome
      const a = yield* createKey(home, "acme")
      const b = yield* createKey(home, "beta")
      yield* seedCollection(home, "acme__wiki")
      return yield* Effect.gen(function*() {
        const alice = yield* clientWith(a)
        const bob = yield* clientWith(b)
        const create = alice.runs.create({
          payload: { collection: "wiki", jsonl: questions.split("\n").slice(0, 2).join("\n") },
          urlParams: {}
        })
        const older = yield* create
        yield* Effect.sleep("5 millis") // a creation time of its own: the newer run lists first
        const run = yield* create
        assert.deepStrictEqual((yield* bob.runs.list({ urlParams: {} })).runs, [])
        // a page at a time: a page with older runs after it names the next page's cursor, the last page none; another
        // tenant's run is no cursor (404)
        const first = yield* alice.runs.list({ urlParams: { limit: 1 } })
        assert.deepStrictEqual(first.runs.map((r) => r.id), [run.id])
        assert.strictEqual(first.nextBefore, run.id)
        const rest = yield* alice.runs.list({ urlParams: { limit: 1, before: run.id } })
        assert.deepStrictEqual([rest.runs.map((r) => r.id), rest.nextBefore], [[older.id], undefined])
        assert.strictEqual((yield* raw(HttpClientRequest.get(`/v1/runs?before=${run.id}`), b)).status, 404)
        // by dataset: the runs over one dataset (a RunView's dataset.hash), the tenant's only
        const sameData = yield* alice.runs.list({ urlParams: { dataset: run.dataset.hash } })
        assert.deepStrictEqual(sameData.runs.map((r) => r.id), [run.id, older.id])
        assert.deepStrictEqual((yield* alice.runs.list({ urlParams: { dataset: "0".repeat(64) } })).runs, [])
        assert.deepStrictEqual((yield* bob.runs.list({ urlParams: { dataset: run.dataset.hash } })).runs, [])
        const badLimit = yield* raw(HttpClientRequest.get("/v1/runs?limit=0"), a)
        assert.strictEqual(badLimit.status, 400)
        assert.include(badLimit.text, "between 1 and 1000")
        assert.deepStrictEqual((yield* bob.collections.list()).collections, [])
        for (
          const path of [
            `/v1/runs/${run.id}`,
            `/v1/runs/${run.id}/events`,
            `/v1/runs/${run.id}/results`,
            "/v1/collections/wiki",
            "/v1/collections/wiki/search?q=x"
          ]
        ) {
          const response = yield* raw(HttpClientRequest.get(path), b)
          assert.strictEqual(response.status, 404, path)
          assert.strictEqual(JSON.parse(response.text).error.code, "not_found")
        }
        for (const path of [`/v1/runs/${run.id}/resume`, `/v1/runs/${run.id}/cancel`]) {
          assert.strictEqual((yield* raw(HttpClientRequest.post(path), b)).status, 404, path)
        }
        assert.strictEqual((yield* raw(HttpClientRequest.get("/v1/runs/r-20260101-000000-zzzz"), a)).status, 404)
        const ask = yield* raw(
          HttpClientRequest.post("/v1/ask").pipe(
            HttpClientRequest.bodyUnsafeJson({ question: "q", collection: "wiki" })
          ),
          b
        )
        assert.strictEqual(ask.status, 404)
        // the same name is a different collection for another tenant
        yield* bob.collections.create({ payload: { name: "wiki" } })
        assert.strictEqual((yield* bob.collections.get({ path: { name: "wiki" } })).documents, 0)
        assert.isAbove((yield* alice.collections.get({ path: { name: "wiki" } })).documents, 100)
      }).pipe(Effect.provide(testServer(home)))
    }))

  it.scopedLive("JSON Lines uploads with query knobs, dataset paths confined to <home>/datasets, cancel and resume", () =>
    Effect.gen(function*() {
      const { home, key } = yield* homeWithTenant("acme", "wiki")
      Fs.mkdirSync(Path.join(home, "datasets"))
      Fs.writeFileSync(Path.join(home, "datasets", "q.jsonl"), questions)
      return yield* Effect.gen(function*() {
        const client = yield* clientWith(key)
        const upload = yield* raw(
          HttpClientRequest.post(
            `/v1/runs?collection=wiki&limit=3&config=${
              encodeURIComponent(JSON.stringify({ maxStep: 1, maxFailure: 1 }))
            }`
          ).pipe(
            HttpClientRequest.bodyText(questions, "application/x-ndjson")
          ),
          key
        )
        assert.strictEqual(upload.status, 202, upload.text)
        const uploaded = JSON.parse(upload.text)
        assert.strictEqual(uploaded.counts.total, 3)
        assert.strictEqual(uploaded.config.maxStep, 1)
        const badKnob = yield* raw(
          HttpClientRequest.post(`/v1/runs?config=${encodeURIComponent(JSON.stringify({ maxStep: -1 }))}`).pipe(
            HttpClientRequest.bodyText(questions, "application/x-ndjson")
          ),
          key
        )
        assert.strictEqual(JSON.parse(badKnob.text).error.field, "config.maxStep")

        const outside = yield* raw(
          HttpClientRequest.post("/v1/runs").pipe(
            HttpClientRequest.bodyUnsafeJson({ datasetPath: "../deepnote.sqlite" })
          ),
          key
        )
        assert.strictEqual(outside.status, 400)
        assert.strictEqual(JSON.parse(outside.text).error.field, "datasetPath")
        const badLine = yield* raw(
          HttpClientRequest.post("/v1/runs").pipe(
            HttpClientRequest.bodyUnsafeJson({ collection: "wiki", jsonl: "{\"id\":\"x\"}\n" })
          ),
          key
        )
        assert.strictEqual(badLine.status, 400)
        assert.strictEqual(JSON.parse(badLine.text).error.field, "jsonl")

        const run = yield* client.runs.create({
          // enough questions, one at a time, that the cancel below lands while the run is still going
          payload: { collection: "wiki", datasetPath: "q.jsonl", limit: 12, concurrency: 1, config: { maxStep: 2 } },
          urlParams: {}
        })
        const cancelled = yield* client.runs.cancel({ path: { id: run.id } })
        assert.strictEqual(cancelled.id, run.id)
        let view = cancelled
        while (view.active || view.status === "created" || view.status === "running") {
          yield* Effect.sleep("20 millis")
          view = yield* client.runs.get({ path: { id: run.id } })
        }
        assert.strictEqual(view.status, "interrupted")
        assert.isBelow(view.counts.done, view.counts.total, "the cancel landed before the run's end")
        yield* client.runs.resume({ path: { id: run.id }, urlParams: {} })
        // resuming a run that is already queued again changes nothing (idempotent)
        const again = yield* client.runs.resume({ path: { id: run.id }, urlParams: {} })
        assert.isTrue(again.active)
        do {
          yield* Effect.sleep("20 millis")
          view = yield* client.runs.get({ path: { id: run.id } })
        } while (view.active)
        assert.strictEqual(view.status, "completed")
        assert.strictEqual(view.counts.done, view.counts.total)
        // a finished run: resume and cancel answer with it as it is
        for (
          const answer of [
            yield* client.runs.resume({ path: { id: run.id }, urlParams: {} }),
            yield* client.runs.cancel({ path: { id: run.id } })
          ]
        ) {
          assert.strictEqual(answer.status, "completed")
          assert.isFalse(answer.active)
          assert.strictEqual(answer.message, view.message)
        }
        // retryFailed: its failed questions too (none here: it stays completed); a value other than true/false is a 400
        const retried = yield* client.runs.resume({ path: { id: run.id }, urlParams: { retryFailed: "true" } })
        assert.strictEqual(retried.status, "completed")
        const badRetry = yield* raw(HttpClientRequest.post(`/v1/runs/${run.id}/resume?retryFailed=yes`), key)
        assert.strictEqual(badRetry.status, 400, badRetry.text)
        assert.strictEqual(JSON.parse(badRetry.text).error.field, "retryFailed")
      }).pipe(Effect.provide(testServer(home)))
    }))
})
