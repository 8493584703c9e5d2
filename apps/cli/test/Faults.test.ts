import { type LlmSimService, start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { journaledLlmCalls } from "./CrashHarness.js"
import { indexedHome, llmArgs, llmUrlArgs, main, repoRoot, resumeArgs, runCli, sampleRunArgs } from "./RunCli.js"

/** Quick recovery, so that the run notices an outage's end within a second. */
const quickLlm = {
  DEEPNOTE_LLM_BACKOFF_BASE: "20 millis",
  DEEPNOTE_LLM_BACKOFF_MAX: "500 millis",
  DEEPNOTE_LLM_COOLDOWN: "200 millis",
  DEEPNOTE_LLM_COOLDOWN_MAX: "500 millis",
  DEEPNOTE_LLM_HEALTH_INTERVAL: "200 millis",
  DEEPNOTE_LLM_CACHE: "false"
}

const runArgs = (home: string, sim: LlmSimService, limit: number) =>
  sampleRunArgs(
    home,
    "--limit",
    String(limit),
    ...llmArgs(sim.url),
    "--max-step",
    "1",
    "--max-failure",
    "1",
    "--concurrency",
    "2"
  )

interface Child {
  readonly pid: number
  readonly kill: (signal: NodeJS.Signals) => void
  readonly output: () => { readonly stdout: string; readonly stderr: string }
  readonly exited: Effect.Effect<number>
}

/** A `deepnote` child process with both streams collected; killed when the test's scope closes. */
const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync((): Child => {
      const child = spawn(process.execPath, [main, ...args], {
        cwd: repoRoot,
        env: { NO_COLOR: "1", ...quickLlm, ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      const exited = new Promise<number>((resolve) =>
        child.on("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
      )
      return {
        pid: child.pid ?? 0,
        kill: (signal) => void child.kill(signal),
        output: () => ({ stdout, stderr }),
        exited: Effect.promise(() => exited)
      }
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

/** Polls until `condition` holds (or fails after `timeoutMs`). */
const until = (condition: () => boolean, what: string, timeoutMs = 60_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })

const post = (url: string) => Effect.promise(() => fetch(url, { method: "POST" }))

const runIdOf = (stdout: string) => /run (r-[^\s:]+)/.exec(stdout)?.[1] ?? ""
/** `(this execution: N LLM calls and retrievals made, …)` of a finished execution. */
const callsMade = (stdout: string) => Number(/(\d+) LLM calls and retrievals made/.exec(stdout)?.[1] ?? "0")

describe("fault injection (the LLM simulator faulted)", () => {
  it.scopedLive(
    "an LLM outage of ~15 s mid-run: the run waits, says so, and ends with every question done",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ content: "lite", stepBaseMs: 3 })
        const home = yield* indexedHome
        const run = yield* spawnCli(runArgs(home, sim, 6))
        yield* until(() => sim.metrics.success >= 6, "the first calls")
        yield* post(`${sim.url}/sim/down`)
        const downAt = Date.now()
        yield* until(() => run.output().stderr.includes("waiting for LLM servers"), "the waiting notice", 30_000)
        yield* until(() => Date.now() - downAt >= 15_000, "15 s of outage", 30_000)
        yield* post(`${sim.url}/sim/up`)
        const code = yield* run.exited
        const { stderr, stdout } = run.output()
        assert.strictEqual(code, 0, stderr)
        assert.match(stdout, /6\/6 done, 0 failed/)
        assert.include(stderr, "LLM servers are back")
        assert.isAbove(sim.metrics.faults["503"] ?? 0, 0, "calls met the outage")
      }),
    120_000
  )

  it.scopedLive("30% of calls answered 429 (Retry-After 1): every question done, exit 0", () =>
    Effect.gen(function*() {
      const sim = yield* start({
        content: "lite",
        stepBaseMs: 1,
        faultRate: 0.3,
        faults: ["429"],
        retryAfterSeconds: 1
      })
      const home = yield* indexedHome
      const run = yield* runCli([...runArgs(home, sim, 6), "--quiet"], { ...quickLlm, NO_COLOR: "1" }, 120_000)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /6\/6 done, 0 failed/)
      assert.isAbove(sim.metrics.faults["429"] ?? 0, 0, "the storm happened")
    }), 150_000)

  it.scopedLive(
    "two concurrent resumes of one run: one executes, the other is refused (exit 4) or waits; each call made once",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ content: "lite", stepBaseMs: 3 })
        const home = yield* indexedHome
        // a run interrupted part way (SIGINT: calls in flight finish and are journaled)
        const first = yield* spawnCli(runArgs(home, sim, 8))
        yield* until(() => sim.metrics.success >= 8, "the first calls")
        first.kill("SIGINT")
        assert.strictEqual(yield* first.exited, 130, first.output().stderr)
        const runId = runIdOf(first.output().stdout)
        assert.notStrictEqual(runId, "")

        const resume = (extra: ReadonlyArray<string>) =>
          spawnCli(resumeArgs(runId, home, ...llmUrlArgs(sim.url), "--concurrency", "2", ...extra))
        const plain = yield* resume([])
        const waiting = yield* resume(["--wait"])
        const [plainCode, waitingCode] = yield* Effect.all([plain.exited, waiting.exited], { concurrency: 2 })
        const a = plain.output()
        const b = waiting.output()
        // whichever took the run executes it; a plain resume that came second is refused, a waiting one finds it done
        if (plainCode === 4) {
          assert.match(a.stderr, /is (being )?(executed|running)|held by|owner/i)
          assert.notInclude(a.stderr, "    at ", "no stack trace")
          assert.strictEqual(waitingCode, 0, b.stderr)
        } else {
          assert.strictEqual(plainCode, 0, a.stderr)
          assert.strictEqual(waitingCode, 0, b.stderr)
        }
        const journaled = yield* journaledLlmCalls(home, runId)
        assert.strictEqual(sim.metrics.success, journaled, "every LLM call of the run reached the server once")
        assert.isAbove(callsMade(a.stdout) + callsMade(b.stdout), 0)
        assert.isTrue(callsMade(a.stdout) === 0 || callsMade(b.stdout) === 0, "one execution made every call")
        const status = yield* runCli(["status", runId, "--home", home])
        assert.match(status.stdout, /8\/8 done|done: 8|8 done/)
      }),
    150_000
  )
})
