// Vitest's global setup for the CLI's suite: `deepnote index` of the sample corpus runs once, in the main process,
// before any test file; `indexedHome` (RunCli.ts) copies the collection file into each test's fresh home instead of
// indexing again — the same file each time, at ≈ 3.8 s of CPU less per home (32 places in the suite ask for one).
// Indexing itself is tested where it is the subject (Cli.test.ts, BadInput.test.ts, Streaming.test.ts).
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import type { TestProject } from "vitest/node"
import { main, repoRoot, sampleCorpus } from "./SamplePaths.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A data directory whose collection `sample` holds the sample corpus; tests copy it, never write to it. */
    readonly sampleHome: string
  }
}

export default function setup(project: TestProject) {
  const home = mkdtempSync(Path.join(tmpdir(), "deepnote-cli-sample-"))
  execFileSync(process.execPath, [main, "index", ...sampleCorpus, "-c", "sample", "--home", home], {
    cwd: repoRoot,
    env: { NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "inherit"]
  })
  project.provide("sampleHome", home)
  return () => rmSync(home, { recursive: true, force: true })
}
