import type { RunView } from "@deepnote-rag/api"
import { defaultRunConfig, Home, RunConfig } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import { createRun } from "@deepnote-rag/runs"
import { RunOwners, Sweeps } from "@deepnote-rag/store"
import { HttpClientRequest } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schedule, Schema } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { serverStoreLayer } from "../src/index.js"
import * as Harness from "./Harness.js"

const records = Fs.readFileSync(Harness.sampleQuestions, "utf8").trim().split("\n").slice(0, 6)
  .map((line) => JSON.parse(line) as { id: string; question: string; answers: Array<string> })
const withTitles = records.map((r, i) => (i === 0 ? { ...r, gold_titles: ["Shirley Temple", "Kiss and Tell"] } : r))
const jsonl = (rows: ReadonlyArray<object>) => rows.map((r) => JSON.stringify(r)).join("\n")
/** The same questions under other ids: nothing pairs with the runs above. */
const otherIds = jsonl(records.map((r) => ({ ...r, id: `other-${r.id}` })))

const json = (text: string) => JSON.parse(text) as Record<string, unknown>

/** Polls a run until it stops (the server's workers execute it). */
const finished = (get: Effect.Effect<RunView, unknown>) =>
  get.pipe(
    Effect.repeat(
      Schedule.identity<RunView>().pipe(Schedule.addDelay(() => "50 millis"), Schedule.whileInput((run) => run.active))
    ),
    Effect.tap((run) => Effect.sync(() => assert.strictEqual(run.status, "completed")))
  )

describe("the inspector's HTTP API: compare, one question, sweeps", () => {
  it.scopedLive("compare pairs by question id with a paired bootstrap; items in detail; tenants see only theirs", () =>
    Effect.gen(function*() {
      const { home, key } = yield* Harness.homeWithTenant("acme", "wiki")
      const other = yield* Harness.createKey(home, "beta")
      return yield* Effect.gen(function*() {
        const client = yield* Harness.clientWith(key)
        const create = (body: string, maxStep: number) =>
          client.runs.create({ payload: { collection: "wiki", jsonl: body, config: { maxStep } }, urlParams: {} })
            .pipe(Effect.flatMap((run) => finished(client.runs.get({ path: { id: run.id } }))))
        const a = yield* create(jsonl(withTitles), 2)
        const b = yield* create(jsonl(withTitles), 4)
        const c = yield* create(otherIds, 2)
        assert.isUndefined(a.sweepId)

        const compared = yield* client.compare.compare({ urlParams: { base: a.id, candidate: b.id, seed: 5 } })
        assert.strictEqual(compared.base.id, a.id)
        assert.strictEqual(compared.candidate.id, b.id)
        assert.deepStrictEqual([compared.paired, compared.onlyBase, compared.onlyCandidate], [6, 0, 0])
        assert.deepStrictEqual(compared.metrics.map((m) => m.metric), ["acc", "em", "f1"])
        for (const m of compared.metrics) {
          assert.isTrue(m.low <= m.difference && m.difference <= m.high, JSON.stringify(m))
          assert.closeTo(m.difference, m.candidate - m.base, 0.02)
        }
        const rank = { regressed: 0, improved: 1, same: 2 }
        const ranks = compared.items.map((i) => rank[i.change])
        assert.deepStrictEqual(ranks, [...ranks].sort((x, y) => x - y), "regressed first, then improved")
        const again = yield* client.compare.compare({ urlParams: { base: a.id, candidate: b.id, seed: 5 } })
        assert.deepStrictEqual(again.metrics, compared.metrics, "the same seed gives the same intervals")
        const self = yield* client.compare.compare({ urlParams: { base: a.id, candidate: a.id } })
        assert.isTrue(self.metrics.every((m) => m.difference === 0 && m.low === 0 && m.high === 0))

        const noPairs = yield* Harness.raw(HttpClientRequest.get(`/v1/compare?base=${a.id}&candidate=${c.id}`), key)
        assert.strictEqual(noPairs.status, 400, noPairs.text)
        assert.include(noPairs.text, "no question pairs")
        assert.strictEqual((json(noPairs.text).error as { code: string }).code, "validation_error")
        const unknown = yield* Harness.raw(HttpClientRequest.get(`/v1/compare?base=${a.id}&candidate=r-nope`), key)
        assert.strictEqual(unknown.status, 404)
        for (
          const query of [`base=${a.id}`, `base=${a.id}&candidate=${b.id}&resamples=abc`, `base=&candidate=${b.id}`]
        ) {
          const bad = yield* Harness.raw(HttpClientRequest.get(`/v1/compare?${query}`), key)
          assert.strictEqual(bad.status, 400, query)
          assert.isString((json(bad.text).error as { message: string }).message)
        }

        const first = records[0]!.id
        const item = yield* client.runs.item({ path: { id: a.id, itemId: first } })
        assert.strictEqual(item.itemId, first)
        assert.strictEqual(item.status, "done")
        assert.isDefined(item.result?.trace)
        assert.deepStrictEqual(Object.keys(item.metrics).sort(), ["acc", "em", "f1"])
        assert.deepStrictEqual(item.goldTitles, ["Shirley Temple", "Kiss and Tell"])
        // gold marks by passage id: the read passages `isGold` accepts (here title-only gold, the legacy field)
        const read = new Map(item.result!.trace.passages.map((p) => [p.passage.id, p.passage.title]))
        assert.isAbove(item.goldPassageIds.length, 0)
        for (const id of item.goldPassageIds) assert.include(["Shirley Temple", "Kiss and Tell"], read.get(id), id)
        assert.strictEqual(
          item.goldPassageIds.length,
          [...read.values()].filter((t) => t === "Shirley Temple" || t === "Kiss and Tell").length
        )
        const second = yield* client.runs.item({ path: { id: a.id, itemId: records[1]!.id } })
        assert.isUndefined(second.goldTitles)
        assert.deepStrictEqual(second.goldPassageIds, [])
        // the question's trace id is stored with its result; the command to show it only once a trace file exists
        assert.match(item.traceId ?? "", /^[0-9a-f]{32}$/)
        assert.isUndefined(item.traceCommand)
        Fs.mkdirSync(Path.join(home, "traces"), { recursive: true })
        Fs.writeFileSync(Path.join(home, "traces", `${a.id}.jsonl`), "")
        const traced = yield* client.runs.item({ path: { id: a.id, itemId: first } })
        assert.strictEqual(traced.traceCommand, `deepnote trace ${a.id} --item ${first}`)

        // the manifest: no models or servers for the extractive engine, the prompt-set and collection hashes
        assert.deepStrictEqual([a.manifest?.models, a.manifest?.servers], [{}, []])
        assert.match(a.manifest?.promptSetHash ?? "", /\S/)
        assert.match(a.manifest?.collectionFingerprint ?? "", /\S/)
        // per-question scores with the results: the comparison's own (a run against itself), no second scoring
        const scored = yield* client.runs.results({ path: { id: a.id }, urlParams: { scores: "true" } })
        assert.deepStrictEqual(
          Object.fromEntries(scored.items.map((i) => [i.itemId, i.metrics])),
          Object.fromEntries(self.items.map((i) => [i.itemId, i.base.metrics]))
        )
        const unscored = yield* client.runs.results({ path: { id: a.id }, urlParams: {} })
        assert.isTrue(unscored.items.every((i) => i.metrics === undefined))
        const noItem = yield* Harness.raw(HttpClientRequest.get(`/v1/runs/${a.id}/items/nope`), key)
        assert.strictEqual(noItem.status, 404)

        for (
          const path of [
            `/v1/compare?base=${a.id}&candidate=${b.id}`,
            `/v1/runs/${a.id}/items/${first}`
          ]
        ) {
          const response = yield* Harness.raw(HttpClientRequest.get(path), other)
          assert.strictEqual(response.status, 404, path)
          assert.strictEqual((json(response.text).error as { code: string }).code, "not_found")
        }
        assert.deepStrictEqual((yield* Harness.raw(HttpClientRequest.get("/v1/sweeps"), other)).text, `{"sweeps":[]}`)
      }).pipe(Effect.provide(Harness.testServer(home)))
    }))

  it.scopedLive("sweeps are listed a page at a time; a keyed tenant's pages hold only the sweeps all of whose runs it owns", () =>
    Effect.gen(function*() {
      const home = yield* Harness.makeHome
      yield* Harness.seedCollection(home, "sample")
      const key = yield* Harness.createKey(home, "acme")
      // five sweeps, one run per cell, oldest first: the tenant owns every run of "a", "c" and "e"; "b" is the CLI's,
      // "d" has one run of the tenant's and one of the CLI's
      const owners: ReadonlyArray<readonly [string, ReadonlyArray<boolean>]> = [
        ["a", [true]],
        ["b", [false]],
        ["c", [true, true]],
        ["d", [true, false]],
        ["e", [true]]
      ]
      const made = yield* Effect.forEach(owners, ([label, cells]) =>
        Effect.gen(function*() {
          yield* Effect.sleep("5 millis") // a created_at of its own: newest first is e, d, c, b, a
          const sweep = yield* (yield* Sweeps).create({ grid: { maxStep: cells.map((_, i) => i + 2) }, label })
          for (const [index, owned] of cells.entries()) {
            const config = Schema.decodeUnknownSync(RunConfig)({
              ...Schema.encodeSync(RunConfig)(defaultRunConfig),
              maxStep: index + 2
            })
            const { run } = yield* createRun({
              dataset: Harness.sampleQuestions,
              limit: 1,
              config,
              collection: "sample",
              promptSetHash: promptSetHash(config),
              sweep: { sweepId: sweep.id, index, cell: { maxStep: index + 2 } }
            })
            if (owned) yield* (yield* RunOwners).record(run.id, "acme")
          }
          return sweep.id
        })).pipe(
          Effect.provide(
            Layer.mergeAll(serverStoreLayer(undefined), NodeContext.layer).pipe(Layer.provide(Home.layer(home)))
          )
        )
      const idOf = new Map(owners.map(([label], i) => [label, made[i]!]))
      const pages = (apiKey: string | undefined) =>
        Effect.gen(function*() {
          const seen: Array<ReadonlyArray<string>> = []
          let before: string | undefined
          for (let i = 0; i < 5; i++) {
            const url = `/v1/sweeps?limit=2${before === undefined ? "" : `&before=${before}`}`
            const response = yield* Harness.raw(HttpClientRequest.get(url), apiKey)
            assert.strictEqual(response.status, 200, response.text)
            const page = json(response.text) as { sweeps: Array<{ label: string }>; nextBefore?: string }
            seen.push(page.sweeps.map((s) => s.label))
            if (page.nextBefore === undefined) break
            before = page.nextBefore
          }
          return seen
        })

      yield* Effect.gen(function*() {
        assert.deepStrictEqual(yield* pages(undefined), [["e", "d"], ["c", "b"], ["a"]])
        const unknown = yield* Harness.raw(HttpClientRequest.get("/v1/sweeps?before=s-nope"))
        assert.strictEqual(unknown.status, 404, unknown.text)
        assert.strictEqual((yield* Harness.raw(HttpClientRequest.get("/v1/sweeps?limit=0"))).status, 400)
      }).pipe(Effect.provide(Harness.testServer(home, Harness.settings({ auth: false }))))

      yield* Effect.gen(function*() {
        // the tenant's candidates are e, d, c, a ("b" has no run of its own); "d" is dropped from its page
        assert.deepStrictEqual(yield* pages(key), [["e"], ["c", "a"]])
        const unseen = yield* Harness.raw(HttpClientRequest.get(`/v1/sweeps?before=${idOf.get("b")}`), key)
        assert.strictEqual(unseen.status, 404, "a sweep the tenant does not see is no cursor")
      }).pipe(Effect.provide(Harness.testServer(home)))
    }))

  it.scopedLive("--no-auth sees the runs and sweeps the CLI made in the home; a tenant with a key does not", () =>
    Effect.gen(function*() {
      const home = yield* Harness.makeHome
      yield* Harness.seedCollection(home, "sample")
      const key = yield* Harness.createKey(home, "acme")
      // what `deepnote run --sweep` leaves when interrupted after its first cell was created: no owner, one cell
      const made = yield* Effect.gen(function*() {
        const sweep = yield* (yield* Sweeps).create({
          grid: { cells: [{ maxStep: 2 }, { maxStep: 3 }], knobs: { maxStep: [2, 3] } },
          label: "steps"
        })
        const config = Schema.decodeUnknownSync(RunConfig)({
          ...Schema.encodeSync(RunConfig)(defaultRunConfig),
          maxStep: 2
        })
        const { run } = yield* createRun({
          dataset: Harness.sampleQuestions,
          limit: 3,
          config,
          collection: "sample",
          promptSetHash: promptSetHash(config),
          sweep: { sweepId: sweep.id, index: 0, cell: { maxStep: 2 } }
        })
        return { sweepId: sweep.id, runId: run.id }
      }).pipe(
        Effect.provide(
          Layer.mergeAll(serverStoreLayer(undefined), NodeContext.layer).pipe(Layer.provide(Home.layer(home)))
        )
      )

      yield* Effect.gen(function*() {
        const run = yield* Harness.raw(HttpClientRequest.get(`/v1/runs/${made.runId}`))
        assert.strictEqual(run.status, 200, run.text)
        assert.strictEqual(json(run.text).sweepId, made.sweepId)
        assert.deepStrictEqual(json(run.text).sweepCell, { maxStep: 2 })
        const runs = json((yield* Harness.raw(HttpClientRequest.get("/v1/runs"))).text).runs as Array<{ id: string }>
        assert.deepStrictEqual(runs.map((r) => r.id), [made.runId])
        const list = json((yield* Harness.raw(HttpClientRequest.get("/v1/sweeps"))).text).sweeps as Array<
          { id: string }
        >
        assert.deepStrictEqual(list.map((s) => s.id), [made.sweepId])
        const sweep = json((yield* Harness.raw(HttpClientRequest.get(`/v1/sweeps/${made.sweepId}`))).text)
        assert.strictEqual(sweep.label, "steps")
        assert.deepStrictEqual(sweep.grid, { maxStep: [2, 3] })
        const cells = sweep.cells as Array<{ cell: object; runId?: string; run?: { id: string } }>
        assert.deepStrictEqual(cells.map((c) => [c.cell, c.runId, c.run?.id]), [
          [{ maxStep: 2 }, made.runId, made.runId],
          [{ maxStep: 3 }, undefined, undefined]
        ])
        assert.strictEqual((yield* Harness.raw(HttpClientRequest.get("/v1/sweeps/s-nope"))).status, 404)
      }).pipe(Effect.provide(Harness.testServer(home, Harness.settings({ auth: false }))))

      yield* Effect.gen(function*() {
        for (const path of [`/v1/runs/${made.runId}`, `/v1/sweeps/${made.sweepId}`]) {
          assert.strictEqual((yield* Harness.raw(HttpClientRequest.get(path), key)).status, 404, path)
        }
        assert.strictEqual((yield* Harness.raw(HttpClientRequest.get("/v1/sweeps"), key)).text, `{"sweeps":[]}`)
        assert.strictEqual((yield* Harness.raw(HttpClientRequest.get("/v1/runs"), key)).text, `{"runs":[]}`)
      }).pipe(Effect.provide(Harness.testServer(home)))
    }))
})
