import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { indexedHome, main, runCli, sampleRunArgs, tempHome } from "./RunCli.js"

/** `deepnote …args` with its stdout's reader gone before it writes (`| head -0`): resolves its exit code and stderr. */
const withClosedReader = (args: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number | null; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.destroy()
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("close", (code) => resume(Effect.succeed({ code, stderr })))
    return Effect.sync(() => void child.kill())
  })

const runIdOf = (stdout: string) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1] ?? ""

describe("deepnote run / status / eval / export / resume", () => {
  it.scopedLive("a run is scored with the paper's metrics; resuming a finished run is a no-op", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const run = yield* runCli(sampleRunArgs(home, "--limit", "6", "--concurrency", "3", "--quiet"))
      assert.strictEqual(run.code, 0, run.stderr)
      const runId = runIdOf(run.stdout)
      assert.include(run.stdout, `run ${runId} completed: 6/6 done, 0 failed`)
      const shown = JSON.parse((yield* runCli(["status", runId, "--json", "--home", home])).stdout) as {
        manifest: { concurrency?: number }
      }
      assert.strictEqual(
        shown.manifest.concurrency,
        3,
        "the run records its concurrency (a resume without --concurrency keeps it)"
      )
      const table = yield* runCli(["eval", runId, "--home", home])
      assert.strictEqual(table.code, 0, table.stderr)
      for (const metric of ["acc", "em", "f1", "95% CI", "stop reasons"]) assert.include(table.stdout, metric)
      const json = JSON.parse((yield* runCli(["eval", runId, "--format", "json", "--home", home])).stdout) as {
        metrics: ReadonlyArray<{ name: string; n: number }>
      }
      assert.deepStrictEqual(json.metrics.map((m) => [m.name, m.n]), [["acc", 6], ["em", 6], ["f1", 6]])
      const csv = yield* runCli(["eval", runId, "--format", "csv", "--home", home])
      assert.match(csv.stdout.split("\n")[0]!, /metric/)
      const exported = (yield* runCli(["export", runId, "--home", home])).stdout.trim().split("\n")
      assert.strictEqual(exported.length, 6)
      assert.property(JSON.parse(exported[0]!) as object, "result")
      const again = yield* runCli(["resume", runId, "--home", home])
      assert.strictEqual(again.code, 0)
      assert.include(again.stdout, "already complete: nothing to do")
      const status = yield* runCli(["status", "--home", home])
      assert.include(status.stdout, runId)
    }))

  it.scopedLive("export to a reader that went away (`| head`): one line on stderr, status 0", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const enqueued = yield* runCli(sampleRunArgs(home, "--limit", "6", "--enqueue"))
      assert.strictEqual(enqueued.code, 0, enqueued.stderr)
      const runId = enqueued.stdout.trim().split("\n")[0]!
      const cut = yield* withClosedReader(["export", runId, "--home", home])
      assert.strictEqual(cut.code, 0, cut.stderr)
      assert.match(cut.stderr, /^export stopped: stdout was closed by its reader \(\d+ lines? written\)\n$/)
    }))

  it.scopedLive("a sweep runs one run per valid cell and reports the invalid ones", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const grid = Path.join(home, "grid.yaml")
      writeFileSync(grid, "grid:\n  maxStep: [1, 2]\n  maxFailure: [1, 2]\n")
      const out = yield* runCli(sampleRunArgs(home, "--limit", "2", "--sweep", grid, "--quiet"))
      assert.strictEqual(out.code, 0, out.stderr)
      assert.include(out.stderr, "skipping cell {\"maxStep\":1,\"maxFailure\":2}")
      assert.strictEqual(out.stdout.match(/completed: 2\/2 done/g)?.length, 3)
      assert.strictEqual(out.stdout.match(/cell \d\/3/g)?.length, 3)

      // the three runs, a page of two at a time: the first page says where the next begins
      const ids = (stdout: string) => stdout.trim().split("\n").map((line) => line.split(" ")[0]!)
      const first = yield* runCli(["status", "--home", home, "--limit", "2"])
      const last = ids(first.stdout).at(-1)!
      assert.strictEqual(first.stderr, `older runs: deepnote status --before ${last} --limit 2\n`)
      const second = yield* runCli(["status", "--home", home, "--limit", "2", "--before", last])
      assert.strictEqual(second.stderr, "")
      const all = ids((yield* runCli(["status", "--home", home])).stdout)
      assert.strictEqual(all.length, 3)
      assert.deepStrictEqual([...ids(first.stdout), ...ids(second.stdout)], all)
    }))

  it.scopedLive("bad datasets, unknown runs and foreign or corrupted stores give one clear line and change nothing", () =>
    Effect.gen(function*() {
      const home = yield* indexedHome
      const bad = Path.join(home, "bad.jsonl")
      writeFileSync(bad, `{"id":"a","question":"Who?","answers":["x"]}\nnot json\n{"id":"c"}\n`)
      const badRun = ["run", "--dataset", bad, "-c", "sample", "--home", home, "--quiet"]
      const refused = yield* runCli(badRun)
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "bad.jsonl:2")
      const status = yield* runCli(["status", "--home", home])
      assert.include(status.stdout, "no runs yet")
      const skipped = yield* runCli([...badRun, "--skip-bad-lines"])
      assert.strictEqual(skipped.code, 0, skipped.stderr)
      assert.include(skipped.stderr, "skipped ")
      assert.match(skipped.stdout, /: 1 question \(resume with/)

      const unknown = yield* runCli(["eval", "r-nope", "--home", home])
      assert.strictEqual(unknown.code, 1)
      assert.include(unknown.stderr, `unknown run id "r-nope"`)

      const storeFile = Path.join(home, "deepnote.sqlite")
      const garbageHome = yield* tempHome
      const garbage = Path.join(garbageHome, "deepnote.sqlite")
      writeFileSync(garbage, "this is not a database, it is a shopping list\n".repeat(20))
      const before = readFileSync(garbage)
      const mtime = statSync(garbage).mtimeMs
      const corrupted = yield* runCli(["status", "--home", garbageHome])
      assert.strictEqual(corrupted.code, 1)
      assert.include(corrupted.stderr, "is not a DeepNote store")
      assert.notMatch(corrupted.stderr, /^\s+at /m)
      assert.isTrue(readFileSync(garbage).equals(before))
      assert.strictEqual(statSync(garbage).mtimeMs, mtime)
      assert.isTrue(statSync(storeFile).size > 0)
    }))
})
