#!/usr/bin/env node
// Bounded load test of POST /v1/ask (extractive engine, sample HotpotQA collection, API key auth).
// Usage: npm run build && node benchmarks/server/load.mjs [--amount 500] [--connections 16] [--out benchmarks/server/results.json]
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, root, startServe } from "../lib/bench.mjs"
import { askLoad, sampleAskHome } from "./ask-load.mjs"

const amount = Number(arg("amount", "500"))
const connections = Number(arg("connections", "16"))
const out = Path.resolve(arg("out", Path.join(root, "benchmarks/server/results.json")))

const { home, key, questions } = sampleAskHome()

const { server, url } = await startServe(["--port", "0", "--home", home], {
  DEEPNOTE_SERVER_REQUESTS_PER_MINUTE: "1000000"
})

const result = await askLoad({ url, key, questions, connections, amount })

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
