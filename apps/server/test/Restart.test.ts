import { Home } from "@deepnote-rag/core"
import { IngestJobLog } from "@deepnote-rag/store"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import * as Fs from "node:fs"
import { serverStoreLayer } from "../src/index.js"
import { clientWith, createKey, homeWithTenant, makeHome, sampleQuestions, settings, testServer } from "./Harness.js"

/** The sample questions three times over (new ids), so a run is still going when the server stops. */
const dataset = [0, 1, 2].flatMap((copy) =>
  Fs.readFileSync(sampleQuestions, "utf8").split("\n").filter((l) => l.trim() !== "").map((line) => {
    const record = JSON.parse(line) as { id: string }
    return JSON.stringify({ ...record, id: `${record.id}-${copy}` })
  })
).join("\n")

describe("restart", () => {
  it.scopedLive(
    "a server restart in the middle of a run loses nothing: the run resumes and every question is answered once",
    () =>
      Effect.gen(function*() {
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        const data = settings({ limits: { drainTimeout: "5 seconds" } })

        // first server: start the run, stop the server once some questions are done
        const first = yield* Scope.make()
        const context1 = yield* Layer.buildWithScope(testServer(home, data), first)
        const run = yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          const created = yield* client.runs.create({
            payload: { collection: "wiki", jsonl: dataset, concurrency: 2 },
            urlParams: {}
          })
          let view = created
          while (view.counts.done < 8) {
            yield* Effect.sleep("50 millis")
            view = yield* client.runs.get({ path: { id: created.id } })
          }
          return created
        }).pipe(Effect.provide(context1))
        yield* Scope.close(first, Exit.void)

        // second server on the same home: resumes the run by itself
        const second = yield* Scope.make()
        const context2 = yield* Layer.buildWithScope(testServer(home, data), second)
        yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          const stopped = yield* client.runs.get({ path: { id: run.id } })
          assert.isBelow(stopped.counts.done, stopped.counts.total, "the first server stopped mid-run")
          let view = stopped
          while (view.status !== "completed") {
            yield* Effect.sleep("50 millis")
            view = yield* client.runs.get({ path: { id: run.id } })
            assert.notStrictEqual(view.status, "failed")
          }
          assert.strictEqual(view.counts.done, view.counts.total)
          const results = yield* client.runs.results({
            path: { id: run.id },
            urlParams: { limit: 5000, report: "false" }
          })
          const ids = results.items.map((i) => i.itemId)
          assert.strictEqual(ids.length, run.counts.total)
          assert.strictEqual(new Set(ids).size, ids.length)
          assert.isTrue(results.items.every((i) => i.status === "done" && i.answer !== undefined))
        }).pipe(Effect.provide(context2))
        yield* Scope.close(second, Exit.void)
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "upload jobs outlive a restart: a finished one keeps its counts, one a dead server left running reads `interrupted`",
    () =>
      Effect.gen(function*() {
        const home = yield* makeHome
        const key = yield* createKey(home, "acme")
        const first = yield* Scope.make()
        const context1 = yield* Layer.buildWithScope(testServer(home), first)
        const small = yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          yield* client.collections.create({ payload: { name: "docs" } })
          const small = yield* client.collections.addDocuments({
            path: { name: "docs" },
            payload: [{ title: "Ada", text: "Ada Lovelace wrote the first program." }]
          })
          let status = small
          while (status.status === "queued" || status.status === "running") {
            yield* Effect.sleep("20 millis")
            status = yield* client.collections.job({ path: { name: "docs", jobId: small.id } })
          }
          assert.strictEqual(status.status, "done")
          return small
        }).pipe(Effect.provide(context1))
        yield* Scope.close(first, Exit.void)

        // what a server killed in the middle of an upload leaves in the store
        yield* Effect.gen(function*() {
          const log = yield* IngestJobLog
          yield* log.create({
            id: "j-killed",
            tenantId: "acme",
            collection: "docs",
            status: "running",
            received: 40_000,
            added: 6000,
            skipped: 0,
            message: undefined,
            createdAt: new Date().toISOString(),
            finishedAt: undefined
          })
        }).pipe(Effect.provide(serverStoreLayer(undefined).pipe(Layer.provide(Home.layer(home)))))

        const second = yield* Scope.make()
        const context2 = yield* Layer.buildWithScope(testServer(home), second)
        yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          const done = yield* client.collections.job({ path: { name: "docs", jobId: small.id } })
          assert.deepStrictEqual([done.status, done.added, done.received], ["done", 1, 1])
          const cut = yield* client.collections.job({ path: { name: "docs", jobId: "j-killed" } })
          assert.deepStrictEqual([cut.status, cut.added, cut.received], ["interrupted", 6000, 40_000])
          assert.include(cut.message ?? "", "upload it again")
          assert.isDefined(cut.finishedAt)
          const other = yield* createKey(home, "globex")
          const hidden = yield* Effect.flip(
            clientWith(other).pipe(
              Effect.flatMap((c) => c.collections.job({ path: { name: "docs", jobId: small.id } }))
            )
          )
          assert.strictEqual(hidden._tag, "NotFound", "another tenant does not see the job")
        }).pipe(Effect.provide(context2))
        yield* Scope.close(second, Exit.void)
      }),
    { timeout: 120_000 }
  )
})
