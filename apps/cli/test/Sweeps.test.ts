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
  assert.include(out.stderr, text, `the whole of stderr: ${out.stderr}`)
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

        // every command below only reads the finished sweep (`single` writes a run of its own beside it), so they run a
        // few at a time: one after another, this test took 191 s beside a CPU hog (its limit: 300 s)
        const reads = { concurrency: 4 } as const
        const inHome = ["--home", home]
        const { status, statusJson } = yield* Effect.all({
          status: runCli(["status", sweepId, ...inHome]),
          statusJson: runCli(["status", sweepId, "--json", ...inHome])
        }, reads)
        assert.strictEqual(status.code, 0, status.stderr)
        assert.include(status.stdout, `sweep ${sweepId} (profiles) · 2 cells`)
        assert.include(status.stdout, "cell 1/2 {\"profile\":\"vanilla\"}")
        assert.include(status.stdout, "cell 2/2 {\"profile\":\"deepnote\"}")
        const cells = (JSON.parse(statusJson.stdout) as { cells: ReadonlyArray<StatusCell> }).cells
        const [a, b] = cells.map((c) => c.run?.id ?? "") as [string, string]
        assert.isTrue(cells.every((c) => c.run?.status === "completed"))

        // the same questions under other ids: nothing pairs
        const other = Path.join(home, "other.jsonl")
        writeFileSync(
          other,
          readFileSync(sampleQuestions, "utf8").trim().split("\n").slice(0, 3).map((line) => {
            const r = JSON.parse(line) as { id: string }
            return JSON.stringify({ ...r, id: `other-${r.id}` })
          }).join("\n") + "\n"
        )
        const out = yield* Effect.all({
          table: runCli(["eval", sweepId, ...inHome]),
          json: runCli(["eval", sweepId, "--format", "json", ...inHome]),
          csv: runCli(["eval", sweepId, "--format", "csv", ...inHome]),
          sideBySide: runCli(["eval", b, a, ...inHome]),
          compared: runCli(["compare", a, b, ...inHome]),
          asJson: runCli(["compare", a, b, "--json", "--seed", "3", ...inHome]),
          again: runCli(["compare", a, b, "--json", "--seed", "3", ...inHome]),
          asCsv: runCli(["compare", a, b, "--csv", ...inHome]),
          perItem: runCli(["compare", a, b, "--csv", "--per-item", ...inHome]),
          single: runCli(["run", "--dataset", other, "-c", "sample", "--quiet", ...inHome]),
          unknownRun: runCli(["compare", a, "r-nope", ...inHome]),
          unknownSweep: runCli(["eval", "s-nope", ...inHome]),
          unknownRunOfTwo: runCli(["eval", a, "r-nope", ...inHome]),
          statusUnknownSweep: runCli(["status", "s-nope", ...inHome]),
          resumeUnknownSweep: runCli(["resume", "s-nope", ...inHome])
        }, reads)

        assert.strictEqual(out.table.code, 0, out.table.stderr)
        assert.include(out.table.stdout, `sweep ${sweepId} (profiles): profile, 2/2 cells created`)
        for (const text of [a, b, "profile=vanilla", "profile=deepnote", "f1"]) assert.include(out.table.stdout, text)
        const json = JSON.parse(out.json.stdout) as {
          sweep: { id: string }
          cells: ReadonlyArray<{ runId: string; report: { metrics: ReadonlyArray<{ name: string }> } }>
        }
        assert.strictEqual(json.sweep.id, sweepId)
        assert.deepStrictEqual(json.cells.map((c) => c.runId), [a, b])
        assert.deepStrictEqual(json.cells[0]!.report.metrics.map((m) => m.name), ["acc", "em", "f1"])
        const csv = out.csv.stdout.trim().split("\n")
        assert.strictEqual(csv[0], "run_id,cell,metric,n,mean,ci_low,ci_high,finished,total")
        assert.strictEqual(csv.length, 1 + 2 * 3)

        assert.strictEqual(out.sideBySide.code, 0, out.sideBySide.stderr)
        assert.include(out.sideBySide.stdout, "2 runs side by side")
        assert.isBelow(out.sideBySide.stdout.indexOf(b), out.sideBySide.stdout.indexOf(a), "rows in the order given")

        assert.strictEqual(out.compared.code, 0, out.compared.stderr)
        assert.include(out.compared.stdout, "6 paired by id, 0 only in base, 0 only in candidate")
        assert.include(out.compared.stdout, "95% CI (paired bootstrap)")
        const asJson = JSON.parse(out.asJson.stdout) as {
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
        assert.deepStrictEqual(JSON.parse(out.again.stdout), asJson, "the same seed gives the same comparison")
        const asCsv = out.asCsv.stdout.trim().split("\n")
        assert.match(asCsv[0]!, /^metric,n,base,candidate,difference,ci_low,ci_high/)
        assert.strictEqual(asCsv.length, 4)
        assert.strictEqual(out.perItem.stdout.trim().split("\n").length, 7)

        assert.strictEqual(out.single.code, 0, out.single.stderr)
        const c = /run (r-[0-9a-z-]+)/.exec(out.single.stdout)?.[1] ?? ""
        oneLine(yield* runCli(["compare", a, c, ...inHome]), 2, "no question pairs")
        oneLine(out.unknownRun, 1, `unknown run id "r-nope"`)
        oneLine(out.unknownSweep, 1, `unknown sweep id "s-nope"`)
        oneLine(out.unknownRunOfTwo, 1, `unknown run id "r-nope"`)
        oneLine(out.statusUnknownSweep, 1, `unknown sweep id "s-nope"`)
        oneLine(out.resumeUnknownSweep, 1, `unknown sweep id "s-nope"`)
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
        assert.include(before.stdout, `2 cells not created, 1 not completed: deepnote resume ${sweepId}`)
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
