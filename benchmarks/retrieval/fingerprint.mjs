#!/usr/bin/env node
// The content fingerprint of a large collection (what an ingest that added passages ends with, and what a run or a
// worker computes when the collection keeps none): `Collections.fingerprint` against the floor of the same work — the
// same rows read in id order by better-sqlite3 directly, as plain arrays, hashed the same way — in the same session,
// alternating, each timing in a fresh process. Both must give the same value.
//
//   npx tsc -b && node benchmarks/retrieval/fingerprint.mjs [--passages 1000000] [--repeat 5]
//
// Writes fingerprint.json beside this file.
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, cliMain, codeCommit, root, spread, tempDir } from "../lib/bench.mjs"

const passages = Number(arg("passages", "1000000"))
const repeat = Number(arg("repeat", "5"))
const here = Path.join(root, "benchmarks/retrieval")

// one timing, run in a fresh process from packages/retrieval (so that its imports resolve to this checkout)
const timings = {
  collections: `
import { Home } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { Effect } from "effect"
import { createRequire } from "node:module"
const home = process.argv[1]
const Database = createRequire(import.meta.url)("better-sqlite3")
const db = new Database(home + "/collections/big.sqlite")
db.prepare("DELETE FROM meta WHERE key = 'content_fingerprint'").run()
db.close()
const program = Effect.gen(function*() {
  const c = yield* Collections
  yield* c.search("big", "warm up", { limit: 1 })
  const t = performance.now()
  const cpu = process.cpuUsage()
  const value = yield* c.fingerprint("big")
  const used = process.cpuUsage(cpu)
  console.log(JSON.stringify({ value, wallMs: performance.now() - t, cpuMs: (used.user + used.system) / 1000 }))
})
await Effect.runPromise(program.pipe(Effect.provide(Collections.layer), Effect.provide(Home.layer(home)), Effect.scoped))
`,
  floor: `
import { createHash } from "node:crypto"
import { createRequire } from "node:module"
const Database = createRequire(import.meta.url)("better-sqlite3")
const db = new Database(process.argv[1] + "/collections/big.sqlite", { readonly: true })
const t = performance.now()
const cpu = process.cpuUsage()
const hash = createHash("sha256")
const page = db.prepare("SELECT id, title, text FROM documents WHERE id > ? ORDER BY id LIMIT 2000").raw()
let after = ""
while (true) {
  const rows = page.all(after)
  for (const [id, title, text] of rows) hash.update(id + "\\u0000" + title + "\\u0000" + text + "\\u0001")
  if (rows.length < 2000) break
  after = rows[rows.length - 1][0]
}
const value = "sha256:" + hash.digest("hex")
const used = process.cpuUsage(cpu)
console.log(JSON.stringify({ value, wallMs: performance.now() - t, cpuMs: (used.user + used.system) / 1000 }))
`
}

const work = tempDir("deepnote-fingerprint-")
try {
  const corpus = Path.join(work, "zipf.jsonl")
  execFileSync(process.execPath, [Path.join(here, "speed-corpus.mjs"), String(passages), corpus], { stdio: "inherit" })
  const home = Path.join(work, "home")
  execFileSync(process.execPath, [cliMain, "index", corpus, "-c", "big", "--home", home], { stdio: "ignore" })
  const results = { collections: [], floor: [] }
  for (let r = 0; r < repeat; r++) {
    for (const [name, source] of Object.entries(timings)) {
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", source, home], {
        cwd: Path.join(root, "packages/retrieval"),
        encoding: "utf8"
      })
      results[name].push(JSON.parse(out.trim().split("\n").pop()))
    }
  }
  const values = new Set(Object.values(results).flat().map((x) => x.value))
  if (values.size !== 1) throw new Error(`the fingerprints differ: ${[...values].join(", ")}`)
  const ratios = results.collections.map((c, i) => c.wallMs / results.floor[i].wallMs)
  const record = {
    date: new Date().toISOString(),
    commit: codeCommit(),
    machine: { node: process.version, cpus: Os.cpus().length, load: Os.loadavg().map((x) => x.toFixed(2)).join(" ") },
    command: `node benchmarks/retrieval/fingerprint.mjs --passages ${passages} --repeat ${repeat}`,
    passages,
    collectionsWallMs: spread(results.collections.map((x) => x.wallMs)),
    collectionsCpuMs: spread(results.collections.map((x) => x.cpuMs)),
    floorWallMs: spread(results.floor.map((x) => x.wallMs)),
    collectionsOverFloor: spread(ratios)
  }
  Fs.writeFileSync(Path.join(here, "fingerprint.json"), JSON.stringify(record, null, 2) + "\n")
  console.log(JSON.stringify(record, null, 2))
} finally {
  Fs.rmSync(work, { recursive: true, force: true })
}
