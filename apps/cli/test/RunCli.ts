import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { inject } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { cpSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import type { CliOutput } from "./InProcessCli.js"
import { main, repoRoot, sampleQuestions } from "./SamplePaths.js"

export { main, repoRoot, sampleCorpus, sampleQuestions } from "./SamplePaths.js"

export { type CliOutput, runCliInProcess as runCli } from "./InProcessCli.js"

/**
 * Runs the built `deepnote` command as a child process (the way users run it): for what only a process has (signals,
 * its exit on a crash, the entry point, two processes on one run). Everything else runs in the test's own process
 * (`runCli`, InProcessCli.ts): a start of the command costs about a second of CPU, ~200 of them half the suite's.
 */
export const runCliProcess = (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 60_000) =>
  Effect.async<CliOutput>((resume) => {
    const child = execFile(
      process.execPath,
      [main, ...args],
      { cwd: repoRoot, env: { NO_COLOR: "1", ...env }, timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    return Effect.sync(() => void child.kill())
  })

/** A fresh data directory removed when the scope closes. */
export const tempHome = Effect.flatMap(
  FileSystem.FileSystem,
  (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-cli-" })
).pipe(
  Effect.provide(NodeContext.layer),
  Effect.orDie
)

/**
 * A fresh data directory (removed when the scope closes) with the sample corpus indexed as the collection `sample`: a
 * copy of the collection `deepnote index` made once for the whole suite (SampleCollection.setup.ts).
 */
export const indexedHome = Effect.gen(function*() {
  const home = yield* tempHome
  cpSync(Path.join(inject("sampleHome"), "collections"), Path.join(home, "collections"), { recursive: true })
  return home
})

/** `command` (`run`, `align-data`) over the sample questions in the collection `sample` of `home`, then `more` flags. */
export const sampleDatasetArgs = (command: string, home: string, ...more: ReadonlyArray<string>) => [
  command,
  "--dataset",
  sampleQuestions,
  "-c",
  "sample",
  "--home",
  home,
  ...more
]

/** `run` over the sample questions in the collection `sample` of `home`, then `more` flags. */
export const sampleRunArgs = (home: string, ...more: ReadonlyArray<string>) => sampleDatasetArgs("run", home, ...more)

/**
 * `run --sweep` over the first `limit` sample questions in the collection `sample` of `home` (quiet), then `more` flags;
 * the sweep file (`yaml`) is written as `grid.yaml` in `home`.
 */
export const sampleSweepArgs = (home: string, yaml: string, limit: number, ...more: ReadonlyArray<string>) => {
  const grid = Path.join(home, "grid.yaml")
  writeFileSync(grid, yaml)
  return sampleRunArgs(home, "--limit", String(limit), "--sweep", grid, "--quiet", ...more)
}

/** `resume` the run `runId` of `home`, then `more` flags. */
export const resumeArgs = (runId: string, home: string, ...more: ReadonlyArray<string>) => [
  "resume",
  runId,
  "--home",
  home,
  ...more
]

/** `ask` a question of the collection `sample` of `home`, then `more` flags. */
export const sampleAskArgs = (question: string, home: string, ...more: ReadonlyArray<string>) => [
  "ask",
  question,
  "-c",
  "sample",
  "--home",
  home,
  ...more
]

/**
 * The flags that send the LLM calls to the servers at `urls` (simulators); `cache: false` adds `--no-llm-cache`, so
 * that every call reaches a server and its counters.
 */
export const llmUrlArgs = (urls: string | ReadonlyArray<string>, options: { readonly cache?: boolean } = {}) => [
  ...(typeof urls === "string" ? [urls] : urls).flatMap((url) => ["--llm-url", url]),
  ...(options.cache === false ? ["--no-llm-cache"] : [])
]

/** `--engine llm` with the LLM servers at `urls` (see `llmUrlArgs`). */
export const llmArgs = (urls: string | ReadonlyArray<string>, options: { readonly cache?: boolean } = {}) => [
  "--engine",
  "llm",
  ...llmUrlArgs(urls, options)
]
