import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
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
export const main = Path.join(repoRoot, "apps/cli/dist/src/main.js")

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
