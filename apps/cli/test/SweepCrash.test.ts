import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnCli, untilSimRequests } from "./CrashHarness.js"
import { indexedHome, runCli, sampleSweepArgs } from "./RunCli.js"

interface Cell {
  readonly cell: Record<string, unknown>
  readonly run?: { readonly status: string; readonly counts: { readonly total: number; readonly done: number } }
}

describe("a sweep stopped in its first cell", () => {
  it.scopedLive(
    "resume SWEEP_ID finishes the stopped cell and creates and runs the cells never created",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ stepBaseMs: 6, tokensPerStep: 4, maxNumSeqs: 16 })
        const home = yield* indexedHome
        const llm = ["--llm-url", `${sim.url}/v1`, "--no-llm-cache"]
        const child = spawnCli(
          sampleSweepArgs(home, "grid:\n  maxStep: [2, 3]\n", 6, "--concurrency", "3", "--engine", "llm", ...llm)
        )
        // a few LLM calls in: the first cell is running, the second does not exist yet
        const reached = yield* untilSimRequests(sim, 5, child)
        if (!reached) {
          const code = yield* Effect.promise(() => child.exited)
          assert.fail(`the sweep ended (${code}) before it could be stopped: ${child.stderr()}`)
        }
        child.process.kill("SIGINT")
        assert.strictEqual(yield* Effect.promise(() => child.exited), 130)
        const sweepId = /sweep (s-[0-9a-z-]+)/.exec(child.stdout())?.[1] ?? ""
        const cellsOf = (out: string) => (JSON.parse(out) as { cells: ReadonlyArray<Cell> }).cells
        const stopped = cellsOf((yield* runCli(["status", sweepId, "--json", "--home", home])).stdout)
        assert.deepStrictEqual(stopped.map((c) => c.run?.status), ["interrupted", undefined])

        const resumed = yield* runCli(["resume", sweepId, "--home", home, "--quiet", ...llm], {}, 180_000)
        assert.strictEqual(resumed.code, 0, resumed.stderr)
        assert.include(resumed.stdout, "resuming (interrupted)")
        assert.include(resumed.stdout, "(created now)")
        const cells = cellsOf((yield* runCli(["status", sweepId, "--json", "--home", home])).stdout)
        assert.deepStrictEqual(
          cells.map((c) => [c.cell, c.run?.status, c.run?.counts.done, c.run?.counts.total]),
          [[{ maxStep: 2 }, "completed", 6, 6], [{ maxStep: 3 }, "completed", 6, 6]]
        )
      }),
    240_000
  )
})
