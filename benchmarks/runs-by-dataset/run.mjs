#!/usr/bin/env node
// Listing runs newest first over a store of many runs — `GET /v1/runs?limit=6`, and `?dataset=HASH` for a dataset
// most runs share (a sweep) and for one of many small ones — with the indexes of store migration 15 (`runs_newest`,
// `runs_dataset_newest`) against the same store with the indexes it had before (migration 14: `runs_dataset` on the
// dataset hash alone, no index on the order), measured from outside over HTTP in the same session.
//
//   npm run build
//   node benchmarks/runs-by-dataset/run.mjs [--runs 2000,20000,100000] [--datasets 200] [--requests 20]
//
// For each store size: one real run of the sample (extractive engine) gives a real manifest and item; its `runs` and
// `items` rows are copied that many times with new ids and newer creation times; half the copies share one dataset
// hash (`bench-sweep`), the other half spread over `--datasets` values. Two `deepnote serve --no-auth` processes, one
// per copy of the store, are asked in turn (A, B, A, B, …) for the newest six runs (what the inspector asks); the
// client times each request and checks that both list the same runs. Writes results.json and results.md beside this file.
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, codeCommit, Database, root, sampleRunHome, spread, startServe, tempDir } from "../lib/bench.mjs"

const sizes = arg("runs", "2000,20000,100000").split(",").map(Number)
const datasets = Number(arg("datasets", "200"))
const requests = Number(arg("requests", "20"))
const here = Path.join(root, "benchmarks/runs-by-dataset")

/** What is asked: the newest six runs of the store, of the sweep's dataset, of one small dataset (i: the request). */
const listings = {
  all: () => "/v1/runs?limit=6",
  sweep: () => "/v1/runs?dataset=bench-sweep&limit=6",
  small: (i) => `/v1/runs?dataset=bench-${String((i * 37) % datasets).padStart(3, "0")}&limit=6`
}

/** The indexes as they were before migration 15 (`runs_dataset` of migration 13, `run_owners_tenant` of 2). */
const asBefore = `DROP INDEX runs_newest; DROP INDEX runs_dataset_newest; DROP INDEX run_owners_tenant_newest;
  CREATE INDEX runs_dataset ON runs (json_extract(manifest, '$.dataset.hash'));
  CREATE INDEX run_owners_tenant ON run_owners(tenant_id, created_at);`

/** The two stores of `runs` runs, each behind its own server: the client's milliseconds per request and listing. */
const measure = async (runs) => {
  const base = tempDir("deepnote-runs-by-dataset-")
  const homes = { after: Path.join(base, "after"), before: Path.join(base, "before") }
  const servers = []
  try {
    sampleRunHome(homes.after)
    const storeFile = Path.join(homes.after, "deepnote.sqlite")
    const db = new Database(storeFile)
    const columns = db.prepare("SELECT name FROM pragma_table_info('runs')").pluck().all()
    const copied = columns.map((c) =>
      c === "id"
        ? "printf('bench-%06d', n)"
        : c === "manifest"
        ? `json_set(manifest, '$.dataset.hash',
            CASE WHEN n % 2 = 0 THEN 'bench-sweep' ELSE printf('bench-%03d', (n / 2) % ${datasets}) END)`
        : c === "created_at"
        ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', printf('+%d seconds', n))"
        : c
    )
    db.exec(`WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < ${runs})
      INSERT INTO runs (${columns.join(", ")}) SELECT ${copied.join(", ")} FROM runs, seq WHERE runs.id NOT LIKE 'bench-%'`)
    const itemColumns = db.prepare("SELECT name FROM pragma_table_info('items')").pluck().all()
    db.exec(`INSERT INTO items (${itemColumns.join(", ")})
      SELECT ${itemColumns.map((c) => (c === "run_id" ? "r.id" : `i.${c}`)).join(", ")}
      FROM items i, runs r WHERE r.id LIKE 'bench-%' AND i.run_id NOT LIKE 'bench-%'`)
    const manifestBytes = db.prepare("SELECT avg(length(manifest)) FROM runs").pluck().get()
    const itemsPerRun = db.prepare("SELECT count(*) FROM items").pluck().get() /
      db.prepare("SELECT count(*) FROM runs").pluck().get()
    db.pragma("wal_checkpoint(TRUNCATE)")
    db.close()
    Fs.cpSync(homes.after, homes.before, { recursive: true })
    const before = new Database(Path.join(homes.before, "deepnote.sqlite"))
    before.exec(asBefore)
    before.close()

    for (const [name, home] of Object.entries(homes)) {
      const { server, url } = await startServe(["--port", "0", "--no-auth", "--home", home])
      servers.push({ name, server, url })
    }
    const ask = async ({ url }, path) => {
      const started = process.hrtime.bigint()
      const response = await fetch(`${url}${path}`)
      const body = await response.json()
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${JSON.stringify(body)}`)
      const listed = body.runs ?? body
      // a small dataset of a small store may have fewer than six runs
      if (!Array.isArray(listed) || listed.length === 0 || listed.length > 6) {
        throw new Error(`expected one to six runs from ${path}, got ${JSON.stringify(body).slice(0, 200)}`)
      }
      return { ms, ids: listed.map((run) => run.id).join(",") }
    }
    const result = {
      date: new Date().toISOString(),
      commit: codeCommit(),
      machine: { cpus: Os.cpus().length, node: process.version, load: Os.loadavg().map((x) => x.toFixed(2)).join(" ") },
      command: `node benchmarks/runs-by-dataset/run.mjs --runs ${runs} --datasets ${datasets} --requests ${requests}`,
      runs: runs + 1,
      itemsPerRun: Number(itemsPerRun.toFixed(2)),
      manifestBytes: Math.round(manifestBytes),
      listings: {}
    }
    for (const [listing, pathOf] of Object.entries(listings)) {
      // warm-up: each server's first requests load its code and statements
      for (const s of servers) for (let i = 0; i < 3; i++) await ask(s, pathOf(i))
      const times = { after: [], before: [] }
      for (let i = 0; i < requests; i++) {
        const answers = []
        for (const s of servers) {
          const { ms, ids } = await ask(s, pathOf(i))
          times[s.name].push(ms)
          answers.push(ids)
        }
        if (answers[0] !== answers[1]) throw new Error(`${pathOf(i)}: the two stores listed ${answers.join(" / ")}`)
      }
      result.listings[listing] = {
        afterMs: spread(times.after),
        beforeMs: spread(times.before),
        afterOverBefore: spread(times.after.map((t, i) => t / times.before[i]))
      }
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
const names = {
  all: "`GET /v1/runs?limit=6`",
  sweep: "`?dataset=` of the sweep (half the runs)",
  small: `\`?dataset=\` of a small one (1/${datasets} of the other half)`
}
Fs.writeFileSync(
  Path.join(here, "results.md"),
  [
    "# Listing runs newest first: migration 15's indexes against those before it",
    "",
    `Written by \`node benchmarks/runs-by-dataset/run.mjs --runs ${sizes.join(",")} --datasets ${datasets} --requests ${requests}\``,
    `(${first.date}, ${first.commit}, Node ${process.version}, 2 cores). Half the runs share one dataset hash (a sweep), the`,
    `other half spread over ${datasets}; manifests of ${first.manifestBytes} bytes on average, ${first.itemsPerRun} items per run.`,
    `${requests} requests for the newest six runs per listing to each of two servers, alternating: the store as migration`,
    "15 leaves it (`runs_newest`, `runs_dataset_newest`) and a copy with the indexes before it (`runs_dataset` of",
    "migration 13 on the dataset hash alone; nothing on the order). Milliseconds per request as the client saw it,",
    "median (min–max); the ratio is taken pair by pair; both servers listed the same runs for every request.",
    "",
    "| runs in the store | listing | migration 15, ms | before it, ms | after / before | load average |",
    "|---|---|---|---|---|---|",
    ...results.flatMap((r) =>
      Object.entries(r.listings).map(([listing, l]) =>
        `| ${r.runs.toLocaleString("en")} | ${names[listing]} | ${f(l.afterMs)} | ${f(l.beforeMs)} | **${
          f(l.afterOverBefore, 3)
        }** | ${r.machine.load} |`
      )
    ),
    ""
  ].join("\n")
)
