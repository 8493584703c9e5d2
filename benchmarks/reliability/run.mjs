#!/usr/bin/env node
// Reliability under faults, measured with the built CLI and simulator (child processes, real HTTP):
//   - questions lost (failed or left undone) to an LLM outage of 15 s and of 60 s mid-run, and to a 30% 429 storm
//     (Retry-After 1); goal 0 of N each;
//   - LLM calls a run needs when its remaining questions are resumed by one resumer vs two concurrent resumers
//     (goal: equal; the second is refused with exit 4 or waits with --wait);
//   - /readyz p99 while three tenants upload 32 MB each (benchmarks/server/uploads.mjs).
// Usage: npx tsc -b && node benchmarks/reliability/run.mjs [--questions 40] [--repeats 3] [--skip-uploads]
//        [--out benchmarks/reliability/results.json]
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, cliMain, root, startSim as startSimWith, stopSim, tempDir } from "../lib/bench.mjs"

const questionsN = Number(arg("questions", "40"))
const repeats = Number(arg("repeats", "3"))
const skipUploads = process.argv.includes("--skip-uploads")
const out = arg("out", Path.join(root, "benchmarks/reliability/results.json"))
const corpus = Path.join(root, "../shared/data/corpus/en-multihop.jsonl")
const dataset = Path.join(root, "../shared/data/hotpotqa/dev-300.ircot.jsonl")

// quick recovery probes, as a deployment next to its LLM servers would set them; everything else at its default
const llmEnv = {
  DEEPNOTE_LLM_HEALTH_INTERVAL: "500 millis",
  DEEPNOTE_LLM_COOLDOWN: "500 millis",
  DEEPNOTE_LLM_COOLDOWN_MAX: "2 seconds",
  DEEPNOTE_LLM_CACHE: "false"
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const startSim = (extra = []) => startSimWith(["--port", "0", "--content", "lite", ...extra], { NO_COLOR: "1" })
const simStats = async (sim) => (await fetch(`${sim.url}/sim/stats`)).json()
const simPost = (sim, path) => fetch(`${sim.url}${path}`, { method: "POST" })

/** A `deepnote` child: exit code, stdout and stderr. */
const deepnote = (args, env = {}) => {
  const child = spawn(process.execPath, [cliMain, ...args], {
    cwd: root,
    env: { NO_COLOR: "1", ...llmEnv, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (c) => (stdout += c))
  child.stderr.on("data", (c) => (stderr += c))
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1))))
  return { child, exited, output: () => ({ stdout, stderr }) }
}

const baseHome = tempDir("deepnote-reliability-")
execFileSync(process.execPath, [cliMain, "index", corpus, "--collection", "wiki", "--home", baseHome], { stdio: "ignore" })
const freshHome = () => {
  const home = tempDir("deepnote-reliability-")
  Fs.cpSync(baseHome, home, { recursive: true })
  return home
}
const runArgs = (home, sim, n = questionsN) => [
  "run", "--dataset", dataset, "--limit", String(n), "--collection", "wiki", "--home", home,
  "--engine", "llm", "--llm-url", sim.url, "--max-step", "2", "--max-failure", "1", "--concurrency", "8"
]
const counts = (stdout) => {
  const m = /(\d+)\/(\d+) done, (\d+) failed/u.exec(stdout)
  return m === null ? { done: 0, total: 0, failed: 0 } : { done: Number(m[1]), total: Number(m[2]), failed: Number(m[3]) }
}
const runIdOf = (stdout) => /run (r-[^\s:]+)/u.exec(stdout)?.[1]

/**
 * One run of the questions against a simulator started with `simArgs`, `during(sim)` acting on it meanwhile: `row`,
 * the figures every scenario reports (exit code, questions lost and failed, wall seconds, LLM calls), and the run's
 * stderr and the simulator's stats for the scenario's own.
 */
const measuredRun = async (simArgs, during = async () => {}) => {
  const sim = await startSim(simArgs)
  const home = freshHome()
  const started = Date.now()
  const run = deepnote(runArgs(home, sim))
  await during(sim)
  const code = await run.exited
  const { stdout, stderr } = run.output()
  const c = counts(stdout)
  const stats = await simStats(sim)
  await stopSim(sim)
  Fs.rmSync(home, { recursive: true, force: true })
  const row = {
    exit: code,
    questions: questionsN,
    lost: questionsN - c.done,
    failed: c.failed,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    llmCalls: stats.success
  }
  return { row, stderr, stats }
}

/** One run with an outage of `outageMs` that starts once a fifth of its calls are done. */
const outage = async (outageMs) => {
  const { row, stderr, stats } = await measuredRun(undefined, async (sim) => {
    while ((await simStats(sim)).success < questionsN) await sleep(50)
    await simPost(sim, "/sim/down")
    await sleep(outageMs)
    await simPost(sim, "/sim/up")
  })
  return {
    outageMs,
    ...row,
    saidWaiting: stderr.includes("waiting for LLM servers"),
    faults503: stats.faults?.["503"] ?? 0
  }
}

/** One run against a simulator answering `rate` of its calls with 429 (Retry-After 1). */
const storm = async (rate, seed) => {
  const { row, stats } = await measuredRun(
    ["--fault-rate", String(rate), "--faults", "429", "--retry-after", "1", "--fault-seed", String(seed)]
  )
  return { rate, ...row, faults429: stats.faults?.["429"] ?? 0 }
}

/**
 * A run interrupted (SIGINT) after a fifth of its calls, then resumed by one resumer or by two at once (one plain,
 * one with --wait): the LLM calls the whole run needed, and how the second resumer ended.
 */
const resumers = async (two) => {
  const sim = await startSim()
  const home = freshHome()
  const first = deepnote(runArgs(home, sim))
  while ((await simStats(sim)).success < questionsN) await sleep(20)
  first.child.kill("SIGINT")
  await first.exited
  const runId = runIdOf(first.output().stdout)
  const resume = (extra) => deepnote(["resume", runId, "--home", home, "--llm-url", sim.url, "--concurrency", "8", ...extra])
  const children = two ? [resume([]), resume(["--wait"])] : [resume([])]
  const codes = await Promise.all(children.map((c) => c.exited))
  const status = execFileSync(process.execPath, [cliMain, "status", runId, "--home", home], { encoding: "utf8" })
  const stats = await simStats(sim)
  await stopSim(sim)
  Fs.rmSync(home, { recursive: true, force: true })
  return { resumers: two ? 2 : 1, exits: codes, llmCalls: stats.success, completed: /completed/u.test(status) }
}

/** Median and spread (min–max) of a list of numbers. */
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length }
}

const spread = (s) => s.min === s.max ? `${s.median}` : `${s.median} (${s.min}–${s.max})`

/** results.md: the summary table, then one line per measured run. */
const markdown = (r) => {
  const s = r.summary
  const lines = [
    "# Reliability under faults",
    "",
    `\`${r.command}\` — ${r.date}, ${r.machine.cpus} × ${r.machine.cpu}, Node ${r.machine.node}, ` +
    `load ${r.machine.loadavg.map((l) => l.toFixed(1)).join(" / ")}, ${r.seconds} s in all.`,
    "",
    "| measure | goal | median (min–max) | runs |",
    "|---|---|---|---|",
    `| questions lost to a 15 s LLM outage (of ${questionsN}) | 0 | ${spread(s.lostTo15sOutage)} | ${s.lostTo15sOutage.n} |`,
    `| questions lost to a 60 s LLM outage (of ${questionsN}) | 0 | ${spread(s.lostTo60sOutage)} | ${s.lostTo60sOutage.n} |`,
    `| questions lost to a 30% 429 storm, Retry-After 1 (of ${questionsN}) | 0 | ${spread(s.lostTo429Storm)} | ${s.lostTo429Storm.n} |`,
    `| LLM calls for the whole run, one resumer | — | ${spread(s.llmCallsOneResumer)} | ${s.llmCallsOneResumer.n} |`,
    `| LLM calls for the whole run, two concurrent resumers | = one resumer's | ${spread(s.llmCallsTwoResumers)} | ${s.llmCallsTwoResumers.n} |`,
    ...(s.readyzP99MsDuringUploads === undefined ? [] : [
      `| \`/readyz\` p99 while 3 tenants upload 32 MB each (ms) | < 100 | ${s.readyzP99MsDuringUploads} | 1 |`
    ]),
    "",
    "## Runs",
    "",
    ...r.results.outage15s.map((x) => `- outage 15 s: exit ${x.exit}, ${x.lost} lost, ${x.failed} failed, said "waiting": ${x.saidWaiting}, ${x.seconds} s, ${x.llmCalls} calls, ${x.faults503} answered 503`),
    ...r.results.outage60s.map((x) => `- outage 60 s: exit ${x.exit}, ${x.lost} lost, ${x.failed} failed, said "waiting": ${x.saidWaiting}, ${x.seconds} s, ${x.llmCalls} calls, ${x.faults503} answered 503`),
    ...r.results.storm429.map((x) => `- 429 storm ${x.rate * 100}%: exit ${x.exit}, ${x.lost} lost, ${x.failed} failed, ${x.seconds} s, ${x.llmCalls} calls, ${x.faults429} answered 429`),
    ...r.results.oneResumer.map((x) => `- one resumer: exits ${x.exits.join(", ")}, ${x.llmCalls} calls, completed: ${x.completed}`),
    ...r.results.twoResumers.map((x) => `- two resumers (plain, --wait): exits ${x.exits.join(", ")}, ${x.llmCalls} calls, completed: ${x.completed}`),
    ""
  ]
  return lines.join("\n")
}

const began = Date.now()
const results = { outage15s: [], outage60s: [], storm429: [], oneResumer: [], twoResumers: [] }
for (let i = 0; i < Math.max(1, Math.min(2, repeats)); i++) results.outage15s.push(await outage(15_000))
results.outage60s.push(await outage(60_000))
for (let i = 0; i < repeats; i++) results.storm429.push(await storm(0.3, 11 + i))
for (let i = 0; i < repeats; i++) {
  results.oneResumer.push(await resumers(false))
  results.twoResumers.push(await resumers(true))
}
Fs.rmSync(baseHome, { recursive: true, force: true })

let uploads
if (!skipUploads) {
  const file = Path.join(Os.tmpdir(), `deepnote-uploads-${process.pid}.json`)
  execFileSync(process.execPath, [Path.join(root, "benchmarks/server/uploads.mjs"), "--out", file], { stdio: "ignore" })
  const measured = JSON.parse(Fs.readFileSync(file, "utf8"))
  Fs.rmSync(file, { force: true })
  uploads = { uploadBytes: measured.uploadBytes, readyz: measured.readyz }
}

const report = {
  date: new Date().toISOString(),
  machine: { cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, node: process.version, loadavg: Os.loadavg() },
  command: `node benchmarks/reliability/run.mjs --questions ${questionsN} --repeats ${repeats}`,
  seconds: Math.round((Date.now() - began) / 1000),
  summary: {
    lostTo15sOutage: summary(results.outage15s.map((r) => r.lost)),
    lostTo60sOutage: summary(results.outage60s.map((r) => r.lost)),
    lostTo429Storm: summary(results.storm429.map((r) => r.lost)),
    llmCallsOneResumer: summary(results.oneResumer.map((r) => r.llmCalls)),
    llmCallsTwoResumers: summary(results.twoResumers.map((r) => r.llmCalls)),
    ...(uploads === undefined ? {} : { readyzP99MsDuringUploads: uploads.readyz.p99 })
  },
  results,
  ...(uploads === undefined ? {} : { uploads })
}
Fs.writeFileSync(out, JSON.stringify(report, null, 2) + "\n")
Fs.writeFileSync(out.replace(/\.json$/u, ".md"), markdown(report))
console.log(JSON.stringify(report.summary, null, 2))
