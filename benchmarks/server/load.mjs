#!/usr/bin/env node
// Bounded load test of POST /v1/ask (extractive engine, sample HotpotQA collection, API key auth).
// Usage: npm run build && node benchmarks/server/load.mjs [--amount 500] [--connections 16] [--out benchmarks/server/results.json]
import autocannon from "autocannon"
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../..")
const cli = Path.join(root, "apps/cli/dist/src/main.js")
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}
const amount = Number(arg("amount", "500"))
const connections = Number(arg("connections", "16"))
const out = Path.resolve(arg("out", Path.join(root, "benchmarks/server/results.json")))

const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-bench-"))
const deepnote = (...args) => execFileSync(process.execPath, [cli, ...args, "--home", home], { encoding: "utf8" })
deepnote("index", Path.join(root, "examples/sample/corpus/hotpotqa-paragraphs.jsonl"), "--collection", "bench__sample")
const { key } = JSON.parse(deepnote("keys", "create", "--tenant", "bench", "--json"))
const questions = Fs.readFileSync(Path.join(root, "examples/sample/questions/hotpotqa.jsonl"), "utf8")
  .split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l).question)

const server = spawn(process.execPath, [cli, "serve", "--port", "0", "--home", home], {
  env: { ...process.env, DEEPNOTE_SERVER_REQUESTS_PER_MINUTE: "1000000" },
  stdio: ["ignore", "pipe", "inherit"]
})
const url = await new Promise((resolve, reject) => {
  let buffer = ""
  server.stdout.on("data", (chunk) => {
    buffer += chunk
    const match = /Listening on (http:\/\/[^\s"]+)/u.exec(buffer)
    if (match) resolve(match[1].replace("0.0.0.0", "127.0.0.1"))
  })
  server.on("exit", (code) => reject(new Error(`server exited with ${code}`)))
})

let next = 0
const result = await autocannon({
  url: `${url}/v1/ask`,
  method: "POST",
  connections,
  amount,
  timeout: 60,
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  requests: [{
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ question: questions[next++ % questions.length], collection: "sample" }) })
  }]
})

const stopped = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })))
server.kill("SIGTERM")
const exit = await stopped

const summary = {
  date: new Date().toISOString(),
  machine: { cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, node: process.version },
  command: `node benchmarks/server/load.mjs --amount ${amount} --connections ${connections}`,
  endpoint: "POST /v1/ask (extractive engine, profile deepnote, sample HotpotQA collection of 1 tenant, API key auth)",
  requests: { total: result.requests.total, sent: result.requests.sent, perSecondMean: result.requests.average },
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, mean: result.latency.mean, max: result.latency.max },
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodes: result.statusCodeStats,
  durationSeconds: result.duration,
  serverExit: exit
}
Fs.writeFileSync(out, JSON.stringify(summary, null, 2) + "\n")
console.log(JSON.stringify(summary, null, 2))
Fs.rmSync(home, { recursive: true, force: true })
