import { seededRandom } from "@deepnote-rag/core"
import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { exportedResults, killAndCountInFlight, spawnCli, untilSimRequests } from "./CrashHarness.js"
import { indexedHome, llmArgs, llmUrlArgs, resumeArgs, runCli, sampleRunArgs } from "./RunCli.js"

const runIdOf = (stdout: string) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1]

/**
 * The crash test (benchmarks/resume has the full version): a run against the vLLM-like simulator, killed at random moments and resumed each time,
 * ends with the same results as an uninterrupted run, every question answered once, and no more LLM calls re-sent
 * than were in flight at each kill (counted from the simulator).
 */
const crashAndResume = (signal: NodeJS.Signals, seed: number) =>
  Effect.gen(function*() {
    const sim = yield* start({ stepBaseMs: 6, tokensPerStep: 4, maxNumSeqs: 16 })
    const home = yield* indexedHome
    const common = sampleRunArgs(
      home,
      ...llmArgs(`${sim.url}/v1`, { cache: false }),
      "--concurrency",
      "6",
      "--quiet",
      "--limit",
      "16"
    )

    const reference = yield* runCli(common)
    assert.strictEqual(reference.code, 0, reference.stderr)
    const referenceCalls = sim.metrics.requests
    const expected = yield* exportedResults(home, runIdOf(reference.stdout)!)
    assert.strictEqual(expected.length, 16)
    // every journaled LLM call carries its tokens: the report's per-question means add up to the simulator's counters
    const evaluated = yield* runCli(["eval", runIdOf(reference.stdout)!, "--format", "json", "--home", home])
    assert.strictEqual(evaluated.code, 0, evaluated.stderr)
    const cost = (JSON.parse(evaluated.stdout) as { cost: { promptTokens?: number; completionTokens?: number } }).cost
    assert.closeTo((cost.promptTokens ?? 0) * 16, sim.metrics.promptTokens, 1)
    assert.closeTo((cost.completionTokens ?? 0) * 16, sim.metrics.generationTokens, 1)

    const startRequests = sim.metrics.requests
    const random = seededRandom(seed)
    const kills = 3
    let runId: string | undefined
    let inFlightTotal = 0
    let before = { requests: sim.metrics.requests, journaled: 0 }
    let child = spawnCli(common)
    for (let k = 0; k < kills; k++) {
      // a random moment in the k-th slice of the work, and never before this process has sent its own first calls
      // (a signal during Node's start-up, before any handler exists, would just kill it)
      const planned = startRequests + Math.floor(((k + 0.3 + 0.5 * random()) / (kills + 1)) * referenceCalls)
      const target = Math.max(planned, sim.metrics.requests + 3)
      const alive = yield* untilSimRequests(sim, target, child)
      assert.isTrue(alive, `the run finished before kill ${k + 1}`)
      const current = child
      const { code, inFlight, journaled } = yield* killAndCountInFlight(sim, child, signal, before, home, () =>
        runId ?? runIdOf(current.stdout()))
      if (signal === "SIGINT") {
        assert.strictEqual(code, 130, "SIGINT stops cleanly with exit code 130")
      }
      if (signal === "SIGINT") {
        assert.strictEqual(inFlight, 0, "after SIGINT every call sent was journaled")
      }
      inFlightTotal += inFlight
      runId ??= runIdOf(child.stdout())
      before = { requests: sim.metrics.requests, journaled }
      assert.isDefined(runId, "the run id is printed before any work")
      const status = yield* runCli(["status", runId!, "--json", "--home", home])
      const run = JSON.parse(status.stdout) as { status: string }
      assert.strictEqual(
        run.status,
        signal === "SIGINT" ? "interrupted" : "running",
        "SIGKILL leaves the run as it was; SIGINT marks it"
      )
      child = spawnCli(
        resumeArgs(runId!, home, ...llmUrlArgs(`${sim.url}/v1`, { cache: false }), "--concurrency", "6", "--quiet")
      )
    }
    assert.strictEqual(
      yield* Effect.promise(() =>
        child.exited
      ),
      0
    )
    const actual = yield* exportedResults(home, runId!)
    assert.deepStrictEqual(
      actual.map(({ id: _, ...r }) =>
        r
      ),
      expected.map(({ id: _, ...r }) =>
        r
      ),
      "identical results"
    )
    assert.isTrue(actual.every((r) => r.status === "done"))
    const resent = sim.metrics.requests - startRequests - referenceCalls
    assert.isAtLeast(resent, 0)
    // a journaled call is never sent again: every extra call is one that was in flight when a process died (equality
    // holds unless a transient error made the client retry)
    assert.isAtMost(resent, inFlightTotal, `re-sent ${resent} calls, ${inFlightTotal} were in flight at the kills`)
    yield* Effect.log(
      `${signal}: ${kills} kills, ${inFlightTotal} calls in flight at the kills, ${resent} re-sent (reference run: ${referenceCalls} calls)`
    )
    return { resent, inFlightTotal }
  })

describe.concurrent("crash and resume against the simulator (child processes)", () => {
  it.scopedLive(
    "SIGKILL at random moments: identical results, re-sent calls ≤ calls in flight at the kills",
    () => crashAndResume("SIGKILL", 7).pipe(Effect.asVoid),
    { timeout: 240_000 }
  )

  it.scopedLive(
    "SIGINT at random moments: the run is marked interrupted and resumes to identical results",
    () => crashAndResume("SIGINT", 11).pipe(Effect.asVoid),
    { timeout: 240_000 }
  )
})
