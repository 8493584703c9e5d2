import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root: the nearest ancestor holding apps/cli (this file runs from test/ and from dist/test/). */
export const repoRoot = ((): string => {
  let dir = Path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(Path.join(dir, "apps", "cli", "package.json")) && Path.dirname(dir) !== dir) {
    dir = Path.dirname(dir)
  }
  return dir
})()
/** The `deepnote` entry point users run (bin/deepnote.mjs: the one-file bundle while it is current). */
export const main = Path.join(repoRoot, "apps/cli/bin/deepnote.mjs")

export interface CliOutput {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built `deepnote` binary as a child process (the way users run it). */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, timeoutMs = 60_000) =>
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

export const sampleCorpus = [
  Path.join(repoRoot, "examples/sample/corpus/hotpotqa-paragraphs.jsonl"),
  Path.join(repoRoot, "examples/sample/corpus/cmrc2018-paragraphs.jsonl")
]

/** The sample's HotpotQA questions: the dataset of the tests' runs. */
export const sampleQuestions = Path.join(repoRoot, "examples/sample/questions/hotpotqa.jsonl")

/** A fresh data directory (removed when the scope closes) with the sample corpus indexed as the collection `sample`. */
export const indexedHome = Effect.gen(function*() {
  const home = yield* tempHome
  const indexed = yield* runCli(["index", ...sampleCorpus, "-c", "sample", "--home", home])
  assert.strictEqual(indexed.code, 0, indexed.stderr)
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
