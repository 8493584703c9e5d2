// Where the CLI's tests find the command and the sample: no Vitest import here, so that the suite's global setup
// (SampleCollection.setup.ts, run outside Vitest's workers) can use it too.
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
/** The `deepnote` entry point users run (bin/deepnote.mjs: the one-file bundle while it is current). */
export const main = Path.join(repoRoot, "apps/cli/bin/deepnote.mjs")

/** The sample corpus: HotpotQA paragraphs (English) and CMRC 2018 paragraphs (Chinese). */
export const sampleCorpus = [
  Path.join(repoRoot, "examples/sample/corpus/hotpotqa-paragraphs.jsonl"),
  Path.join(repoRoot, "examples/sample/corpus/cmrc2018-paragraphs.jsonl")
]

/** The sample's HotpotQA questions: the dataset of the tests' runs. */
export const sampleQuestions = Path.join(repoRoot, "examples/sample/questions/hotpotqa.jsonl")
