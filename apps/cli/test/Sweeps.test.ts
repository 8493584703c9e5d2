import { defaultRunConfig, Home, RunConfig } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import { createRun } from "@deepnote-rag/runs"
import { Store, Sweeps } from "@deepnote-rag/store"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { type CliOutput, indexedHome, runCli, sampleQuestions, sampleSweepArgs } from "./RunCli.js"

/** One clear line on stderr, no stack trace. */
const oneLine = (out: CliOutput, code: number, text: string) => {
  assert.strictEqual(out.code, code, out.stderr)
  assert.include(out.stderr, text)
  assert.strictEqual(out.stderr.trim().split("\n").length, 1, out.stderr)
  assert.notInclude(out.stderr, "    at ")
}

const sweepIdOf = (stdout: string) => /sweep (s-[0-9a-z-]+)/.exec(stdout)?.[1] ?? ""

interface StatusCell {
  readonly index: number
  readonly cell: Record<string, unknown>
  readonly run?: {
    readonly id: string
    readonly status: string
    readonly counts: { readonly total: number; readonly done: number }
    readonly manifest: { readonly config: { readonly maxStep: number } }
  }
}

describe("sweeps as objects and run comparison (child processes)", () => {
  it.scopedLive(
    "status and eval of a sweep, eval of several runs, compare as table, JSON and CSV; bad ids",
    () =>
      Effect.gen(function*() {
        const home = yield* indexedHome
        const ran = yield* runCli(sampleSweepArgs(home, "grid:\n  profile: [vanilla, deepnote]\nlabel: profiles\n", 6))
        assert.strictEqual(ran.code, 0, ran.stderr)
        const sweepId = sweepIdOf(ran.stdout)
        assert.include(
          ran.stdout,
          `sweep ${sweepId}: 2 cells (if stopped, \`deepnote resume ${sweepId}\` continues every cell)`
        )

        const status = yield* runCli(["status", sweepId, "--home", home])
        assert.strictEqual(status.code, 0, status.stderr)
        assert.include(status.stdout, `sweep ${sweepId} (profiles) · 2 cells`)
        assert.include(status.stdout, "cell 1/2 {\"profile\":\"vanilla\"}")
        assert.include(status.stdout, "cell 2/2 {\"profile\":\"deepnote\"}")
        const cells = (JSON.parse((yield* runCli(["status", sweepId, "--json", "--home", home])).stdout) as {
          cells: ReadonlyArray<StatusCell>
        }).cells
        const [a, b] = cells.map((c) => c.run?.id ?? "")
        assert.isTrue(cells.every((c) => c.run?.status === "completed"))

        const table = yield* runCli(["eval", sweepId, "--home", home])
        assert.strictEqual(table.code, 0, table.stderr)
        assert.include(table.stdout, `sweep ${sweepId} (profiles): profile, 2/2 cells created`)
        for (const text of [a!, b!, "profile=vanilla", "profile=deepnote", "f1"]) assert.include(table.stdout, text)
        const json = JSON.parse((yield* runCli(["eval", sweepId, "--format", "json", "--home", home])).stdout) as {
          sweep: { id: string }
          cells: ReadonlyArray<{ runId: string; report: { metrics: ReadonlyArray<{ name: string }> } }>
        }
        assert.strictEqual(json.sweep.id, sweepId)
        assert.deepStrictEqual(json.cells.map((c) => c.runId), [a, b])
        assert.deepStrictEqual(json.cells[0]!.report.metrics.map((m) => m.name), ["acc", "em", "f1"])
        const csv = (yield* runCli(["eval", sweepId, "--format", "csv", "--home", home])).stdout.trim().split("\n")
        assert.strictEqual(csv[0], "run_id,cell,metric,n,mean,ci_low,ci_high,finished,total")
        assert.strictEqual(csv.length, 1 + 2 * 3)

        const sideBySide = yield* runCli(["eval", b!, a!, "--home", home])
        assert.strictEqual(sideBySide.code, 0, sideBySide.stderr)
        assert.include(sideBySide.stdout, "2 runs side by side")
        assert.isBelow(sideBySide.stdout.indexOf(b!), sideBySide.stdout.indexOf(a!), "rows in the order given")

        const compared = yield* runCli(["compare", a!, b!, "--home", home])
        assert.strictEqual(compared.code, 0, compared.stderr)
        assert.include(compared.stdout, "6 paired by id, 0 only in base, 0 only in candidate")
        assert.include(compared.stdout, "95% CI (paired bootstrap)")
        const asJson = JSON.parse(
          (yield* runCli(["compare", a!, b!, "--json", "--seed", "3", "--home", home])).stdout
        ) as {
          base: string
          paired: number
          seed: number
          metrics: ReadonlyArray<{ metric: string; difference: number; low: number; high: number }>
          items: ReadonlyArray<{ change: string }>
        }
        assert.deepStrictEqual([asJson.base, asJson.paired, asJson.seed], [a, 6, 3])
        assert.deepStrictEqual(asJson.metrics.map((m) => m.metric), ["acc", "em", "f1"])
        for (const m of asJson.metrics) assert.isTrue(m.low <= m.difference && m.difference <= m.high)
        const order = asJson.items.map((i) => ["regressed", "improved", "same"].indexOf(i.change))
        assert.deepStrictEqual(order, [...order].sort((x, y) => x - y))
        const again = JSON.parse((yield* runCli(["compare", a!, b!, "--json", "--seed", "3", "--home", home])).stdout)
        assert.deepStrictEqual(again, asJson, "the same seed gives the same comparison")
        const asCsv = (yield* runCli(["compare", a!, b!, "--csv", "--home", home])).stdout.trim().split("\n")
        assert.match(asCsv[0]!, /^metric,n,base,candidate,difference,ci_low,ci_high/)
        assert.strictEqual(asCsv.length, 4)
        const perItem = (yield* runCli(["compare", a!, b!, "--csv", "--per-item", "--home", home])).stdout.trim()
        assert.strictEqual(perItem.split("\n").length, 7)

        // the same questions under other ids: nothing pairs
        const other = Path.join(home, "other.jsonl")
        writeFileSync(
          other,
          readFileSync(sampleQuestions, "utf8").trim().split("\n").slice(0, 3).map((line) => {
            const r = JSON.parse(line) as { id: string }
            return JSON.stringify({ ...r, id: `other-${r.id}` })
          }).join("\n") + "\n"
        )
        const single = yield* runCli(["run", "--dataset", other, "-c", "sample", "--home", home, "--quiet"])
        assert.strictEqual(single.code, 0, single.stderr)
        const c = /run (r-[0-9a-z-]+)/.exec(single.stdout)?.[1] ?? ""
        oneLine(yield* runCli(["compare", a!, c, "--home", home]), 2, "no question pairs")
        oneLine(yield* runCli(["compare", a!, "r-nope", "--home", home]), 1, `unknown run id "r-nope"`)
        oneLine(yield* runCli(["eval", "s-nope", "--home", home]), 1, `unknown sweep id "s-nope"`)
        oneLine(yield* runCli(["eval", a!, "r-nope", "--home", home]), 1, `unknown run id "r-nope"`)
        oneLine(yield* runCli(["status", "s-nope", "--home", home]), 1, `unknown sweep id "s-nope"`)
        oneLine(yield* runCli(["resume", "s-nope", "--home", home]), 1, `unknown sweep id "s-nope"`)
      }),
    300_000
  )

  it.scopedLive(
    "resume SWEEP_ID creates and runs the cells an interruption left uncreated, and resumes the others",
    () =>
      Effect.gen(function*() {
        const home = yield* indexedHome
        // what `deepnote run --sweep` leaves when stopped right after creating its first cell's run
        const sweepId = yield* Effect.gen(function*() {
          const sweep = yield* (yield* Sweeps).create({
            grid: { cells: [{ maxStep: 2 }, { maxStep: 3 }, { maxStep: 4 }], knobs: { maxStep: [2, 3, 4] } }
          })
          const config = Schema.decodeUnknownSync(RunConfig)({
            ...Schema.encodeSync(RunConfig)(defaultRunConfig),
            maxStep: 2
          })
          yield* createRun({
            dataset: sampleQuestions,
            limit: 4,
            config,
            collection: "sample",
            promptSetHash: promptSetHash(config),
            sweep: { sweepId: sweep.id, index: 0, cell: { maxStep: 2 } }
          })
          return sweep.id
        }).pipe(
          Effect.provide(Layer.mergeAll(Store.layerConfig, NodeContext.layer).pipe(Layer.provide(Home.layer(home))))
        )
        const before = yield* runCli(["status", sweepId, "--home", home])
        assert.include(before.stdout, "cell 2/3 {\"maxStep\":3}  not created")
        assert.include(before.stdout, `2 cell(s) not created, 1 not completed: deepnote resume ${sweepId}`)
        assert.include((yield* runCli(["eval", sweepId, "--home", home])).stdout, "(not created)")

        const resumed = yield* runCli(["resume", sweepId, "--home", home, "--quiet"])
        assert.strictEqual(resumed.code, 0, resumed.stderr)
        assert.include(resumed.stdout, "resuming (created)")
        assert.strictEqual(resumed.stdout.match(/\(created now\)/g)?.length, 2)
        const cells = (JSON.parse((yield* runCli(["status", sweepId, "--json", "--home", home])).stdout) as {
          cells: ReadonlyArray<StatusCell>
        }).cells
        assert.deepStrictEqual(
          cells.map((c) => [c.run?.status, c.run?.manifest.config.maxStep, c.run?.counts.done]),
          [["completed", 2, 4], ["completed", 3, 4], ["completed", 4, 4]]
        )
        const compared = JSON.parse(
          (yield* runCli(["compare", cells[0]!.run!.id, cells[2]!.run!.id, "--json", "--home", home])).stdout
        ) as { paired: number }
        assert.strictEqual(compared.paired, 4, "a created cell has its sibling's questions")

        const again = yield* runCli(["resume", sweepId, "--home", home, "--quiet"])
        assert.strictEqual(again.code, 0, again.stderr)
        assert.strictEqual(again.stdout.match(/already complete/g)?.length, 3)
      }),
    240_000
  )
})
