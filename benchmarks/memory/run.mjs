// Peak RSS of `deepnote eval` and `deepnote export` against run size (issue 21, item 4: constant memory).
// Run from the repo root after `npx tsc -b`:
//   node benchmarks/memory/run.mjs --label after [--sizes 500,5000,20000] [--home DIR] [--cli apps/cli/dist/src/main.js]
//     [--commit SHA] [--heap-cap 128]
// Without --home it builds a scratch home: the HotpotQA dev-300 collection, a 100-question extractive seed run, and
// one synthetic run per size (`make-runs.mjs`: the seed's real results copied round-robin, ~20 KB of result per
// question). Each command runs once per size under `/usr/bin/time` (peak RSS = the process's maximum resident set):
//   eval RUN · eval RUN --format json --per-item · export RUN -o FILE · export RUN (stdout, read through a pipe)
// At the largest size, eval and export run again with V8's old space capped (--heap-cap MiB, default 128): V8 lets its
// heap grow to several times what is live before collecting, so the cap shows what a command really holds.
// The sha256 of every output is recorded so that two labels can be compared byte for byte (`report.mjs`).
// Writes benchmarks/memory/<label>.json.
import { spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { arg, cliMain, root, tempDir } from "../lib/bench.mjs"

const label = arg("label", "after")
const sizes = arg("sizes", "500,5000,20000").split(",").map(Number)
const cli = Path.resolve(arg("cli", cliMain))
const dataset = Path.resolve(root, "../shared/data/hotpotqa/dev-300.ircot.jsonl")
const here = Path.dirname(new URL(import.meta.url).pathname)

const deepnote = (args) => {
  const out = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", maxBuffer: 1 << 26 })
  if (out.status !== 0) throw new Error(`deepnote ${args.join(" ")} failed: ${out.stderr}`)
  return out.stdout
}

/** Runs `deepnote …args` under /usr/bin/time; resolves peak RSS (MiB), wall and CPU seconds and the stdout's sha256. */
const measured = (args, nodeFlags = []) =>
  new Promise((resolve, reject) => {
    const timeFile = Path.join(scratch, "time.txt")
    const command = ["-f", "%M %e %U %S", "-o", timeFile, process.execPath, ...nodeFlags, cli, ...args]
    const child = spawn("/usr/bin/time", command, {
      stdio: ["ignore", "pipe", "pipe"]
    })
    const hash = createHash("sha256")
    let bytes = 0
    let stderr = ""
    child.stdout.on("data", (chunk) => (hash.update(chunk), (bytes += chunk.length)))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`deepnote ${args.join(" ")} exited with ${code}: ${stderr}`))
      const [kb, wall, user, sys] = Fs.readFileSync(timeFile, "utf8").trim().split("\n").at(-1).split(" ").map(Number)
      resolve({
        peakMiB: Math.round(kb / 1024),
        wallS: wall,
        cpuS: Math.round((user + sys) * 100) / 100,
        stdoutBytes: bytes,
        sha256: hash.digest("hex")
      })
    })
  })

const fileSha = (path) => createHash("sha256").update(Fs.readFileSync(path)).digest("hex")

const scratch = tempDir("deepnote-memory-")
const home = arg("home", undefined) ?? scratch
const runsFile = Path.join(home, "memory-runs.json")
let runs = Fs.existsSync(runsFile) ? JSON.parse(Fs.readFileSync(runsFile, "utf8")) : {}
if (sizes.some((s) => runs[s] === undefined)) {
  if (!Fs.existsSync(Path.join(home, "collections", "hotpot"))) {
    deepnote(["index", "--collection", "hotpot", dataset, "--format", "ircot", "--home", home])
  }
  runs.seed ??= /run (r-\S+) completed/u.exec(
    deepnote(["run", "--dataset", dataset, "--limit", "100", "--collection", "hotpot", "--engine", "extractive",
      "--home", home, "--quiet"])
  )?.[1]
  const missing = sizes.filter((s) => runs[s] === undefined)
  const made = spawnSync(process.execPath, [
    Path.join(here, "make-runs.mjs"),
    "--store",
    `sqlite:${Path.join(home, "deepnote.sqlite")}`,
    "--seed",
    runs.seed,
    "--sizes",
    missing.join(",")
  ], { encoding: "utf8", cwd: root })
  if (made.status !== 0) throw new Error(`make-runs failed: ${made.stderr}`)
  for (const line of made.stdout.trim().split("\n")) {
    const { runId, size } = JSON.parse(line)
    runs[size] = runId
  }
  Fs.writeFileSync(runsFile, JSON.stringify(runs))
}

const heapCapMiB = Number(arg("heap-cap", "128"))
const results = {}
for (const size of sizes) {
  const runId = runs[size]
  const common = ["--home", home]
  const out = Path.join(scratch, `export-${size}.jsonl`)
  const row = {
    eval: await measured(["eval", runId, ...common]),
    evalJsonPerItem: await measured(["eval", runId, "--format", "json", "--per-item", ...common]),
    exportFile: await measured(["export", runId, "-o", out, ...common]),
    exportStdout: await measured(["export", runId, ...common])
  }
  row.exportFile.fileBytes = Fs.statSync(out).size
  row.exportFile.sha256 = fileSha(out)
  Fs.rmSync(out)
  if (size === Math.max(...sizes)) {
    // the same commands with V8's heap capped: they finish only if what they hold stays under the cap
    const cap = [`--max-old-space-size=${heapCapMiB}`]
    row.evalCapped = await measured(["eval", runId, ...common], cap).catch((e) => ({ failed: String(e).slice(0, 300) }))
    row.exportCapped = await measured(["export", runId, "-o", out, ...common], cap)
      .catch((e) => ({ failed: String(e).slice(0, 300) }))
    Fs.rmSync(out, { force: true })
  }
  results[size] = row
  console.error(`${size}: ${Object.entries(row).map(([k, v]) => `${k} ${v.peakMiB ?? "failed"} MiB ${v.wallS} s`).join(" · ")}`)
}

// --commit names the measured code when --cli points outside this checkout (an older build in a scratch copy)
const commit = arg("commit", undefined) ??
  spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8", cwd: root }).stdout.trim()
const report = {
  label,
  commit,
  node: process.version,
  date: new Date().toISOString(),
  heapCapMiB,
  load: Fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  sizes: results
}
Fs.writeFileSync(Path.join(here, `${label}.json`), `${JSON.stringify(report, null, 2)}\n`)
Fs.rmSync(scratch, { recursive: true, force: true })
