// Index build time, file size, RSS and query latency of the embedded FTS5 index at 100k and 1M synthetic passages,
// side by side with MiniSearch 7.2.0 at 100k, in the same run. Each scenario runs in its own process (clean RSS).
// Run: npx tsc -b packages/retrieval && node benchmarks/retrieval/speed.mjs        (from the repo root)
//      node benchmarks/retrieval/speed.mjs --only fts:100000                       (one scenario)
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const here = Path.dirname(new URL(import.meta.url).pathname)
const scenarios = ["fts:100000", "minisearch:100000", "fts:1000000"]
const only = process.argv.indexOf("--only")
const selected = only > 0 ? [process.argv[only + 1]] : scenarios
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-speed-"))
const results = []
try {
  for (const scenario of selected) {
    const [engine, n] = scenario.split(":")
    const corpus = Path.join(work, `zipf-${n}.jsonl`)
    if (!Fs.existsSync(corpus)) execFileSync(process.execPath, [Path.join(here, "speed-corpus.mjs"), n, corpus], { stdio: "inherit" })
    const out = execFileSync(process.execPath, ["--max-old-space-size=4096", Path.join(here, `speed-${engine}.mjs`), corpus, work], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    const result = JSON.parse(out.trim().split("\n").pop())
    console.error(JSON.stringify(result))
    results.push({ engine, passages: Number(n), corpusBytes: Fs.statSync(corpus).size, ...result })
  }
} finally {
  Fs.rmSync(work, { recursive: true, force: true })
}
const record = { results, machine: { node: process.version, cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, date: new Date().toISOString() } }
// A partial run (--only) replaces its scenario's entry in the committed results.
const file = Path.join(here, "speed.json")
if (only > 0 && Fs.existsSync(file)) {
  const previous = JSON.parse(Fs.readFileSync(file, "utf8"))
  const key = (r) => `${r.engine}:${r.passages}`
  record.results = [...previous.results.filter((r) => !results.some((x) => key(x) === key(r))), ...results]
}
Fs.writeFileSync(file, JSON.stringify(record, null, 2) + "\n")
console.log(JSON.stringify(record, null, 2))
