#!/usr/bin/env node
// `GET /v1/runs?dataset=HASH` over a store of many runs: with the index of store migration 13 (`runs_dataset`, on the
// dataset hash inside each run's manifest) against the same store without it (the index dropped: every manifest read
// and parsed, as before migration 13), measured from outside over HTTP in the same session.
//
//   npm run build && node benchmarks/runs-by-dataset/run.mjs [--runs 2000,20000,100000] [--datasets 200] [--requests 40]
//
// For each store size: one real run of the sample (extractive engine) gives a real manifest; its row is copied that
// many times with new ids and dataset hashes spread over `--datasets` values. Two `deepnote serve --no-auth`
// processes, one per copy of the store, are asked in turn (A, B, A, B, …) for the newest six runs of one dataset (what
// the inspector's run page asks); the client times each request. Writes results.json and results.md beside this file.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, codeCommit, Database, root, sampleRunHome, spread, startServe, tempDir } from "../lib/bench.mjs"

const sizes = arg("runs", "2000,20000,100000").split(",").map(Number)
const datasets = Number(arg("datasets", "200"))
const requests = Number(arg("requests", "40"))
const here = Path.join(root, "benchmarks/runs-by-dataset")

/** The two stores of `runs` runs, each behind its own server: the client's milliseconds per request. */
const measure = async (runs) => {
  const base = tempDir("deepnote-runs-by-dataset-")
  const homes = { indexed: Path.join(base, "indexed"), scan: Path.join(base, "scan") }
  const servers = []
  try {
    sampleRunHome(homes.indexed)

    // the one real run, copied: new ids, newer creation times, dataset hashes bench-000 … bench-(datasets-1)
    const storeFile = Path.join(homes.indexed, "deepnote.sqlite")
    const db = new Database(storeFile)
    const columns = db.prepare("SELECT name FROM pragma_table_info('runs')").pluck().all()
    const copied = columns.map((c) =>
      c === "id"
        ? "printf('bench-%06d', n)"
        : c === "manifest"
        ? `json_set(manifest, '$.dataset.hash', printf('bench-%03d', n % ${datasets}))`
        : c === "created_at"
        ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('+%d seconds', n))"
        : c
    )
    db.exec(`WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < ${runs})
      INSERT INTO runs (${columns.join(", ")}) SELECT ${copied.join(", ")} FROM runs, seq WHERE runs.id NOT LIKE 'bench-%'`)
    const manifestBytes = db.prepare("SELECT avg(length(manifest)) FROM runs").pluck().get()
    db.pragma("wal_checkpoint(TRUNCATE)")
    db.close()
    Fs.cpSync(homes.indexed, homes.scan, { recursive: true })
    const scan = new Database(Path.join(homes.scan, "deepnote.sqlite"))
    scan.exec("DROP INDEX runs_dataset")
    scan.close()

    for (const [name, home] of Object.entries(homes)) {
      const { server, url } = await startServe(["--port", "0", "--no-auth", "--home", home])
      servers.push({ name, server, url })
    }
    const ask = async ({ url }, i) => {
      const dataset = `bench-${String((i * 37) % datasets).padStart(3, "0")}`
      const started = process.hrtime.bigint()
      const response = await fetch(`${url}/v1/runs?dataset=${dataset}&limit=6`)
      const body = await response.json()
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (response.status !== 200) throw new Error(`GET /v1/runs answered ${response.status}: ${JSON.stringify(body)}`)
      const listed = body.runs ?? body
      if (!Array.isArray(listed) || listed.length !== 6) {
        throw new Error(`expected six runs, got ${JSON.stringify(body).slice(0, 200)}`)
      }
      return ms
    }
    // warm-up: each server's first requests load its code and statements
    for (const s of servers) for (let i = 0; i < 3; i++) await ask(s, i)
    const times = { indexed: [], scan: [] }
    for (let i = 0; i < requests; i++) {
      for (const s of servers) times[s.name].push(await ask(s, i))
    }
    const ratios = times.indexed.map((t, i) => t / times.scan[i])
    const result = {
      date: new Date().toISOString(),
      commit: codeCommit(),
      machine: { cpus: Os.cpus().length, node: process.version, load: Os.loadavg().map((x) => x.toFixed(2)).join(" ") },
      command: `node benchmarks/runs-by-dataset/run.mjs --runs ${runs} --datasets ${datasets} --requests ${requests}`,
      runs: runs + 1,
      manifestBytes: Math.round(manifestBytes),
      indexedMs: spread(times.indexed),
      scanMs: spread(times.scan),
      indexedOverScan: spread(ratios)
    }
    console.log(JSON.stringify(result))
    return result
  } finally {
    await Promise.all(servers.map(({ server }) =>
      new Promise((resolve) => {
        if (server.exitCode !== null || server.signalCode !== null) return resolve()
        server.once("exit", resolve)
        server.kill("SIGTERM")
      })
    ))
    Fs.rmSync(base, { recursive: true, force: true })
  }
}

const results = []
for (const runs of sizes) results.push(await measure(runs))
Fs.writeFileSync(Path.join(here, "results.json"), JSON.stringify(results, null, 2) + "\n")
const f = (s, d = 2) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`
const first = results[0]
Fs.writeFileSync(
  Path.join(here, "results.md"),
  [
    "# `GET /v1/runs?dataset=HASH`: index against scan",
    "",
    `Written by \`node benchmarks/runs-by-dataset/run.mjs --runs ${sizes.join(",")} --datasets ${datasets} --requests ${requests}\``,
    `(${first.date}, ${first.commit}, Node ${process.version}, 2 cores). Runs over ${datasets} dataset hashes (manifests of`,
    `${first.manifestBytes} bytes on average); ${requests} requests for the newest six runs of one dataset to each of two`,
    "servers, alternating: the store with `runs_dataset` (store migration 13) and a copy with the index dropped (every",
    "manifest read and parsed, as before it). Milliseconds per request as the client saw it, median (min–max); the",
    "ratio is taken pair by pair.",
    "",
    "| runs in the store | with the index, ms | index dropped, ms | with / without | load average |",
    "|---|---|---|---|---|",
    ...results.map((r) =>
      `| ${r.runs.toLocaleString("en")} | ${f(r.indexedMs)} | ${f(r.scanMs)} | **${f(r.indexedOverScan, 3)}** | ${r.machine.load} |`
    ),
    ""
  ].join("\n")
)
