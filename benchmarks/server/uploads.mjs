#!/usr/bin/env node
// /readyz latency while tenants upload large document sets (POST /v1/collections/{name}/documents, JSON Lines).
// Usage: npm run build && node benchmarks/server/uploads.mjs [--uploaders 3] [--copies 5] [--corpus FILE] [--out FILE]
// Each uploader sends the corpus `copies` times (ids made distinct: 5 × the shared en-multihop corpus ≈ 32 MB,
// 55,420 documents), all at once, while /readyz is probed sequentially every 10 ms until every job has ended.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, cliIn, distinctCopies, root, startServe, tempDir } from "../lib/bench.mjs"

const uploaders = Number(arg("uploaders", "3"))
const copies = Number(arg("copies", "5"))
const corpus = Path.resolve(arg("corpus", Path.join(root, "../shared/data/corpus/en-multihop.jsonl")))
const out = arg("out", undefined)

const home = tempDir()
const deepnote = cliIn(home)
const tenants = Array.from({ length: uploaders }, (_, i) => `t${i}`)
const keys = tenants.map((t) => JSON.parse(deepnote("keys", "create", "--tenant", t, "--json")).key)
const lines = Fs.readFileSync(corpus, "utf8").split("\n").filter((l) => l.trim() !== "")
const bodies = tenants.map((t) => Buffer.from(distinctCopies(lines, t, copies)))

const { server, url } = await startServe(["--engine", "extractive", "--port", "0", "--home", home])
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const call = async (path, key, init = {}) => {
  const response = await fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } })
  return { status: response.status, json: await response.json() }
}
for (const key of keys) {
  await call("/v1/collections", key, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "docs" })
  })
}

const samples = []
let sampling = true
const t0 = performance.now()
const sampler = (async () => {
  while (sampling) {
    const start = performance.now()
    const response = await fetch(`${url}/readyz`)
    await response.text()
    samples.push({ at: start - t0, ms: performance.now() - start, status: response.status })
    await sleep(10)
  }
})()
const jobs = await Promise.all(tenants.map(async (_, i) => {
  const start = performance.now()
  const accepted = await call("/v1/collections/docs/documents", keys[i], {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: bodies[i]
  })
  const acceptedMs = performance.now() - start
  let job = accepted.json
  while (job.status === "queued" || job.status === "running") {
    await sleep(200)
    job = (await call(`/v1/collections/docs/jobs/${accepted.json.id}`, keys[i])).json
  }
  return { status: job.status, received: job.received, added: job.added, acceptedMs: Math.round(acceptedMs), doneMs: Math.round(performance.now() - start) }
}))
sampling = false
await sampler
const stopped = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })))
server.kill("SIGTERM")
await stopped

const sorted = samples.map((s) => s.ms).sort((a, b) => a - b)
const q = (p) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 10) / 10
const summary = {
  date: new Date().toISOString(),
  machine: { cpus: Os.cpus().length, cpu: Os.cpus()[0]?.model, node: process.version, loadavg: Os.loadavg() },
  command: `node benchmarks/server/uploads.mjs --uploaders ${uploaders} --copies ${copies}`,
  uploadBytes: bodies.map((b) => b.length),
  readyz: {
    samples: sorted.length,
    p50: q(0.5),
    p90: q(0.9),
    p99: q(0.99),
    max: Math.round(sorted[sorted.length - 1] * 10) / 10,
    slowerThan500ms: samples.filter((s) => s.ms > 500).length,
    not200: samples.filter((s) => s.status !== 200).length
  },
  jobs
}
if (out !== undefined) Fs.writeFileSync(out, JSON.stringify(summary, null, 2) + "\n")
console.log(JSON.stringify(summary, null, 2))
Fs.rmSync(home, { recursive: true, force: true })
