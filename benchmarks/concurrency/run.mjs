#!/usr/bin/env node
// `deepnote run --engine llm` at the default questions in flight (the endpoints' capacity) vs the former fixed 16,
// against the simulator with a realistic step time; runs interleaved, repeated; median and spread of the wall time.
// Usage: npx tsc -b && node benchmarks/concurrency/run.mjs [--questions 96] [--repeats 3] [--max-num-seqs 32]
//          [--step-base-ms 20] [--tokens-per-step 4] [--reply-extra init=100,update=125,plan=15,judge=0,answer=5]
//          [--out benchmarks/concurrency/results.json]
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, cliMain, median, root, startSim, stopSim, tempDir } from "../lib/bench.mjs"

const questions = Number(arg("questions", "96"))
const repeats = Number(arg("repeats", "3"))
const seqs = arg("max-num-seqs", "32")
const stepMs = arg("step-base-ms", "20")
const tokensPerStep = arg("tokens-per-step", "4")
const replyExtra = arg("reply-extra", "init=100,update=125,plan=15,judge=0,answer=5")
const out = Path.resolve(arg("out", Path.join(root, "benchmarks/concurrency/results.json")))
const dataset = Path.resolve(root, arg("dataset", "../shared/data/hotpotqa/dev-300.ircot.jsonl"))
const corpus = Path.resolve(root, arg("corpus", "../shared/data/corpus/en-multihop.jsonl"))

const home = tempDir()
execFileSync(process.execPath, [cliMain, "index", corpus, "--collection", "en", "--home", home], { stdio: "ignore" })
const simArgs = [
  "--port", "0", "--max-num-seqs", seqs, "--step-base-ms", stepMs, "--tokens-per-step", tokensPerStep,
  "--content", "lite", "--reasoning-mean-tokens-by-role", replyExtra
]
const sim = await startSim(simArgs)

/** One `deepnote run`: wall seconds and the concurrency line it printed. */
const runOnce = (extra) =>
  new Promise((resolve, reject) => {
    const args = [
      cliMain, "run", "--dataset", dataset, "--limit", String(questions), "--collection", "en", "--engine", "llm",
      "--llm-url", `${sim.url}/v1`, "--no-llm-cache", "--quiet", "--home", home, ...extra
    ]
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdout.resume()
    child.on("exit", (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      if (code !== 0) return reject(new Error(`run exited with ${code}: ${stderr}`))
      resolve({ seconds, concurrency: /^concurrency .*$/m.exec(stderr)?.[0] ?? "" })
    })
  })

const modes = { "fixed 16": ["--concurrency", "16"], "default": [] }
const runs = Object.fromEntries(Object.keys(modes).map((m) => [m, []]))
const lines = {}
for (let r = 0; r < repeats; r++) {
  for (const [mode, extra] of Object.entries(modes)) {
    const load = Os.loadavg()[0]
    const result = await runOnce(extra)
    runs[mode].push({ seconds: Number(result.seconds.toFixed(2)), load: Number(load.toFixed(1)) })
    lines[mode] = result.concurrency
    console.error(`${mode}: ${result.seconds.toFixed(1)} s (${result.concurrency}; load ${load.toFixed(1)})`)
  }
}
await stopSim(sim)

const summary = {
  date: new Date().toISOString(),
  machine: { cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, node: process.version },
  command: `node benchmarks/concurrency/run.mjs --questions ${questions} --repeats ${repeats} --max-num-seqs ${seqs} ` +
    `--step-base-ms ${stepMs} --tokens-per-step ${tokensPerStep} --reply-extra ${replyExtra}`,
  simulator: simArgs.join(" "),
  dataset: `${Path.relative(root, dataset)} (first ${questions}), collection ${Path.relative(root, corpus)}`,
  modes: Object.fromEntries(Object.keys(modes).map((mode) => {
    const seconds = runs[mode].map((x) => x.seconds)
    return [mode, {
      concurrency: lines[mode],
      wallSeconds: { median: median(seconds), min: Math.min(...seconds), max: Math.max(...seconds) },
      runs: runs[mode]
    }]
  })),
  speedup: Number((median(runs["fixed 16"].map((x) => x.seconds)) / median(runs.default.map((x) => x.seconds))).toFixed(2))
}
Fs.writeFileSync(out, JSON.stringify(summary, null, 2) + "\n")
console.log(JSON.stringify(summary, null, 2))
Fs.rmSync(home, { recursive: true, force: true })
