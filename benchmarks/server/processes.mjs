#!/usr/bin/env node
// POST /v1/ask req/s of `deepnote serve` as one process vs `--processes N` (node:cluster, one port), extractive engine,
// sample HotpotQA collection, API-key auth; interleaved, repeated; median and spread.
// Usage: npx tsc -b && node benchmarks/server/processes.mjs [--processes 2] [--repeats 3] [--amount 500]
//          [--connections 16] [--engine extractive|llm] [--out benchmarks/server/processes.json]
// --engine llm: the LLM engine against the simulator (zero step time: the server's own CPU is what is measured).
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, cliMain, median, root, spread, startSim, stopSim } from "../lib/bench.mjs"
import { askLoad, sampleAskHome } from "./ask-load.mjs"

const processes = Number(arg("processes", String(Os.availableParallelism())))
const repeats = Number(arg("repeats", "3"))
const amount = Number(arg("amount", "500"))
const connections = Number(arg("connections", "16"))
const engine = arg("engine", "extractive")
const out = Path.resolve(arg("out", Path.join(root, `benchmarks/server/processes${engine === "llm" ? "-llm" : ""}.json`)))
const sim = engine === "llm"
  ? await startSim([
    "--port", "0", "--max-num-seqs", "64", "--step-base-ms", "0", "--step-per-seq-ms", "0",
    "--step-per-prefill-token-ms", "0", "--tokens-per-step", "64", "--content", "lite"
  ])
  : undefined
const engineArgs = sim === undefined ? [] : ["--engine", "llm", "--llm-url", `${sim.url}/v1`, "--no-llm-cache"]

const { home, key, questions } = sampleAskHome()

/** `deepnote serve --processes n`, resolved once every process serves (the supervisor's line, or the one listener). */
const serve = (n) =>
  new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [cliMain, "serve", "--port", "0", "--home", home, "--processes", String(n), ...engineArgs], {
      env: { ...process.env, DEEPNOTE_SERVER_REQUESTS_PER_MINUTE: "1000000" },
      stdio: ["ignore", "inherit", "pipe"]
    })
    let buffer = ""
    // the address and the supervisor's pids are log lines: on stderr (passed through)
    server.stderr.on("data", (chunk) => {
      process.stderr.write(chunk)
      buffer += chunk
      const url = /Listening on (http:\/\/[^\s"]+)/u.exec(buffer)?.[1]
      const pids = /serving with \d+ processes \(pids ([\d, ]+)\)/u.exec(buffer)?.[1]
      if (url !== undefined && (n === 1 || pids !== undefined)) {
        resolve({ server, url, pids: n === 1 ? [server.pid] : pids.split(", ").map(Number) })
      }
    })
    server.on("exit", (code) => reject(new Error(`server exited with ${code}`)))
  })

/** CPU seconds (user + system) the serving processes used so far, from /proc (Linux). */
const cpuSeconds = (pids) =>
  pids.reduce((sum, pid) => {
    const fields = Fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
    return sum + (Number(fields[11]) + Number(fields[12])) / 100
  }, 0)

const load = async (url) => {
  const result = await askLoad({ url, key, questions, connections, amount })
  return {
    reqPerSec: Number((result.requests.total / result.duration).toFixed(1)),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx
  }
}

const runs = { 1: [], [processes]: [] }
for (let r = 0; r < repeats; r++) {
  for (const n of [1, processes]) {
    const loadAvg = Number(Os.loadavg()[0].toFixed(1))
    const { pids, server, url } = await serve(n)
    const cpuBefore = cpuSeconds(pids)
    const started = Date.now()
    const result = { ...(await load(url)), load: loadAvg }
    // cores the server used while loaded: its CPU seconds over the wall seconds (one process: at most about 1)
    result.serverCores = Number(((cpuSeconds(pids) - cpuBefore) / ((Date.now() - started) / 1000)).toFixed(2))
    const stopped = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })))
    server.kill("SIGTERM")
    result.exit = await stopped
    runs[n].push(result)
    console.error(
      `${n} process(es): ${result.reqPerSec} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
        `server ${result.serverCores} cores (load ${loadAvg})`
    )
  }
}

if (sim !== undefined) await stopSim(sim)

const summary = {
  date: new Date().toISOString(),
  machine: { cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, node: process.version, loadAvg: Os.loadavg() },
  command: `node benchmarks/server/processes.mjs --processes ${processes} --repeats ${repeats} --amount ${amount} ` +
    `--connections ${connections}`,
  endpoint: `POST /v1/ask (${engine} engine${sim === undefined ? "" : ", zero-step simulator"}, profile deepnote, ` +
    "sample HotpotQA collection, API key auth)",
  results: Object.fromEntries(Object.entries(runs).map(([n, rs]) => [`${n} process${n === "1" ? "" : "es"}`, {
    reqPerSec: spread(rs.map((x) => x.reqPerSec)),
    p50Ms: spread(rs.map((x) => x.p50)),
    p99Ms: spread(rs.map((x) => x.p99)),
    serverCores: spread(rs.map((x) => x.serverCores)),
    runs: rs
  }])),
  ratio: Number((median(runs[processes].map((x) => x.reqPerSec)) / median(runs[1].map((x) => x.reqPerSec))).toFixed(2))
}
Fs.writeFileSync(out, JSON.stringify(summary, null, 2) + "\n")
console.log(JSON.stringify(summary, null, 2))
Fs.rmSync(home, { recursive: true, force: true })
