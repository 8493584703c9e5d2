import type { LlmSimService } from "@deepnote-rag/llm-sim"
import { Journal, Store } from "@deepnote-rag/store"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Path from "node:path"
import { main, repoRoot, runCli } from "./RunCli.js"

/** A `deepnote` child process whose stdout and stderr are collected. */
export interface Child {
  readonly process: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Child => {
  const child = spawn(process.execPath, [main, ...args], {
    cwd: repoRoot,
    env: { NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return { process: child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** `spawnCli` for a scoped test: the child is killed (SIGKILL) when the scope closes, whatever the test's outcome. */
export const spawnCliScoped = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => spawnCli(args, env)),
    (child) => Effect.sync(() => void child.process.kill("SIGKILL"))
  )

interface ExportLine {
  readonly itemId: string
  readonly status: string
  readonly answer?: string
  readonly result?: { readonly bestNote?: { readonly text: string }; readonly trace: unknown }
}

/** A run's results as `export` prints them (`more`: e.g. `--store URL`), in the form two runs are compared in. */
export const exportedResults = (home: string, runId: string, ...more: ReadonlyArray<string>) =>
  runCli(["export", runId, "--home", home, ...more]).pipe(
    Effect.map((out) =>
      out.stdout.trim().split("\n").map((l) => JSON.parse(l) as ExportLine).map((l) => ({
        id: l.itemId,
        status: l.status,
        answer: l.answer,
        note: l.result?.bestNote?.text,
        trace: JSON.stringify(l.result?.trace)
      }))
    )
  )

/** Waits (polling) until the simulator has received at least `n` generation requests, or the child exits. */
export const untilSimRequests = (sim: LlmSimService, n: number, child: Child) =>
  Effect.async<boolean>((resume) => {
    let done = false
    const timer = setInterval(() => {
      if (sim.metrics.requests >= n && !done) {
        done = true
        clearInterval(timer)
        resume(Effect.succeed(true))
      }
    }, 2)
    void child.exited.then(() => {
      if (!done) {
        done = true
        clearInterval(timer)
        resume(Effect.succeed(false))
      }
    })
    return Effect.sync(() => clearInterval(timer))
  })

/** LLM calls journaled so far for a run (read from the store file; the writer is dead or idle). */
export const journaledLlmCalls = (home: string, runId: string) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const totals = yield* journal.totals(runId)
    return totals.reduce((sum, t) => sum + t.llmCalls, 0)
  }).pipe(Effect.provide(Store.layer({ url: Path.join(home, "deepnote.sqlite") })), Effect.orDie)

/**
 * Kills the child with `signal` and returns how many LLM calls it had in flight when it died: calls the simulator
 * received from this process minus calls this process journaled (a call whose response arrived but was not yet
 * journaled counts as in flight: it is lost and must be sent again).
 */
export const killAndCountInFlight = (
  sim: LlmSimService,
  child: Child,
  signal: NodeJS.Signals,
  before: { readonly requests: number; readonly journaled: number },
  home: string,
  runId: () => string | undefined
) =>
  Effect.gen(function*() {
    child.process.kill(signal)
    const code = yield* Effect.promise(() => child.exited)
    const id = runId()
    const journaled = id === undefined ? 0 : yield* journaledLlmCalls(home, id)
    const sent = sim.metrics.requests - before.requests
    return { code, inFlight: sent - (journaled - before.journaled), sent, journaled }
  })
