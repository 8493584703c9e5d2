// CPU per BM25 search of a real `deepnote run --engine llm` workload, the old build against this one in one process.
//
//   npx tsc -b                        # this build, the CLI and the simulator
//   node benchmarks/retrieval/search-workload.mjs --baseline DIR [--rounds 7] [--block 50]
//      [--searches FILE] [--label NAME] [--note TEXT]
//
// The workload: every search of a 200-question HotpotQA dev-300 run (IRCoT file, --engine llm on the simulator with
// zero step time, concurrency 64), recorded by search-capture.mjs (MATCH expression, limit, weights), replayed as the
// query text whose MATCH expression it was (checked: `buildMatch` gives the recorded expression back). Without
// --searches the run is made first (≈ 1.5 min) and its searches kept in benchmarks/.work/hotpot-searches.jsonl.
// --baseline DIR: the built package of the older code (`packages/retrieval` with its dist/, copied from a checkout of
// that commit after `npx tsc -b`), placed under this checkout (e.g. benchmarks/.work/) so its imports resolve to the
// same effect and @deepnote-rag/core as this build.
// Both `Collections` services open the same collection (indexed once from the dev-300 file). Each round replays every
// search through both, in alternating blocks of --block 50 searches, timing process CPU (user + sys) per variant; a
// first pass compares every result list (ids, titles, texts, order, scores). Prints and writes search-workload.json
// (label → result: per-search CPU median, min and max over the rounds, and the per-round ratio new / old). A third
// variant, the statement alone on a prepared better-sqlite3 statement without Effect, is the floor.
import { Home } from "@deepnote-rag/core"
import * as New from "@deepnote-rag/retrieval"
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { Context, Effect, Layer } from "effect"
import { arg, codeCommit, median, root, startSim, stopSim, tempDir } from "../lib/bench.mjs"

const dataset = Path.resolve(arg("data", Path.join(root, "../shared/data")), "hotpotqa/dev-300.ircot.jsonl")
const rounds = Number(arg("rounds", "7"))
const block = Number(arg("block", "50"))
const label = arg("label", "default")
const note = arg("note")
const baseline = arg("baseline")
const searchesFile = arg("searches", Path.join(root, "benchmarks/.work/hotpot-searches.jsonl"))
if (baseline === undefined) throw new Error("--baseline DIR (the older build of packages/retrieval) is required")
const Old = await import(pathToFileURL(Path.resolve(baseline, "dist/src/index.js")).href)

const captureSearches = async () => {
  const home = tempDir("deepnote-capture-")
  const main = Path.join(root, "apps/cli/dist/src/main.js")
  const sim = await startSim([
    "--port", "0", "--max-num-seqs", "64", "--step-base-ms", "0", "--step-per-seq-ms", "0",
    "--step-per-prefill-token-ms", "0", "--tokens-per-step", "64"
  ])
  try {
    execFileSync(process.execPath, [main, "index", dataset, "-c", "hotpot", "--home", home], { stdio: "ignore" })
    Fs.mkdirSync(Path.dirname(searchesFile), { recursive: true })
    Fs.rmSync(searchesFile, { force: true })
    execFileSync(process.execPath, [
      "--import", Path.join(root, "benchmarks/retrieval/search-capture.mjs"), main, "run", "--dataset", dataset,
      "--limit", "200", "-c", "hotpot", "--home", home, "--engine", "llm", "--llm-url", `${sim.url}/v1`,
      "--no-llm-cache", "--concurrency", "64", "--quiet"
    ], { stdio: "ignore", env: { ...process.env, DEEPNOTE_BENCH_SEARCHES: searchesFile } })
  } finally {
    await stopSim(sim)
    Fs.rmSync(home, { recursive: true, force: true })
  }
}

if (!Fs.existsSync(searchesFile)) await captureSearches()
const termsOf = (match) => [...match.matchAll(/"((?:[^"]|"")*)"/gu)].map((m) => m[1].replaceAll("\"\"", "\""))
const searches = Fs.readFileSync(searchesFile, "utf8").trim().split("\n").map((line) => {
  const s = JSON.parse(line)
  const query = termsOf(s.match).join(" ")
  if (New.buildMatch(query) !== s.match) throw new Error(`cannot replay ${s.match}`)
  if (s.weights[0] !== s.weights[2] || s.weights[1] !== s.weights[3]) throw new Error("CJK weight other than 1")
  return { query, limit: s.limit, titleWeight: s.weights[0], textWeight: s.weights[1] }
})

const cpuMs = (since) => {
  const u = process.cpuUsage(since)
  return (u.user + u.system) / 1000
}

const home = tempDir("deepnote-search-workload-")
// Each build's service from a layer of its own: both tags have the same key, so one context holding both would give
// the same service to both (a merged layer made every comparison before 2026-11-30 an A/A run of one build)
const serviceOf = (build) =>
  Effect.map(
    Layer.build(build.Collections.layer.pipe(Layer.provide(Home.layer(home)))),
    (context) => Context.get(context, build.Collections)
  )
const program = Effect.gen(function*() {
  const fresh = yield* serviceOf(New)
  const old = yield* serviceOf(Old)
  if (fresh === old) throw new Error("one service for both builds")
  // the floor: the same statement on a prepared better-sqlite3 statement, no Effect (MATCH built as the service does)
  const db = new Database(Path.join(home, "collections/hotpot.sqlite"), { readonly: true })
  db.pragma("cache_size = -65536")
  const statement = db.prepare(`SELECT d.id AS id, d.title AS title, d.text AS text, -r.score AS score
    FROM (SELECT rowid, bm25(fts, ?, ?, ?, ?) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?) AS r
    JOIN documents AS d ON d.rowid = r.rowid ORDER BY r.score`)
  const sqlite = (list) =>
    Effect.sync(() => {
      for (const s of list) {
        const w = [s.titleWeight, s.textWeight, s.titleWeight, s.textWeight]
        statement.all(...w, New.buildMatch(s.query), s.limit)
      }
    })
  const search = (collections) => (list) =>
    Effect.forEach(list, (s) =>
      collections.search("hotpot", s.query, { limit: s.limit, titleWeight: s.titleWeight, textWeight: s.textWeight }))
  const variants = { old: search(old), new: search(fresh), sqlite }
  const replay = (variant, list = searches) => variant(list)

  // identity: every result list of the old build and this one
  // (timed too: the first pass is the one a single run pays, before anything was kept)
  let since = process.cpuUsage()
  const before = yield* replay(variants.old)
  const firstPass = { old: cpuMs(since) / searches.length }
  since = process.cpuUsage()
  const after = yield* replay(variants.new)
  firstPass.new = cpuMs(since) / searches.length
  let differing = 0
  let maxScoreDiff = 0
  let rows = 0
  before.forEach((list, i) => {
    const other = after[i]
    rows += list.length
    const same = (d, j) => d.id === other[j].id && d.title === other[j].title && d.text === other[j].text
    if (list.length !== other.length || !list.every(same)) differing++
    list.forEach((d, j) => {
      if (other[j] !== undefined) maxScoreDiff = Math.max(maxScoreDiff, Math.abs(d.score - other[j].score))
    })
  })

  // blocks of `block` searches alternate between the variants (the first of each pair alternating too), so a change in
  // the machine's load within a round falls on both alike; a round's figure is its CPU over every search
  const names = ["old", "new", "sqlite"]
  const perSearch = { old: [], new: [], sqlite: [] }
  for (let round = 0; round < rounds; round++) {
    const spent = { old: 0, new: 0, sqlite: 0 }
    for (let start = 0, pair = 0; start < searches.length; start += block, pair++) {
      const slice = searches.slice(start, start + block)
      const turn = (round + pair) % names.length
      for (const name of [...names.slice(turn), ...names.slice(0, turn)]) {
        const since = process.cpuUsage()
        yield* replay(variants[name], slice)
        spent[name] += cpuMs(since)
      }
    }
    for (const name of names) perSearch[name].push(spent[name] / searches.length)
  }
  db.close()
  return { differing, maxScoreDiff, rows, perSearch, firstPass }
})

// indexed by a service of its own, closed before the measured ones open the file (a service that built the collection
// searched ≈ 5 % slower than one that did not, in an A/A run)
await Effect.runPromise(Effect.scoped(Effect.provide(
  Effect.flatMap(New.Collections, (c) => c.index("hotpot", [dataset])),
  New.Collections.layer.pipe(Layer.provide(Home.layer(home)))
)))
const measured = await Effect.runPromise(Effect.scoped(program))
Fs.rmSync(home, { recursive: true, force: true })

const round3 = (x) => Math.round(x * 1000) / 1000
const summary = (xs) => ({ median: round3(median(xs)), min: round3(Math.min(...xs)), max: round3(Math.max(...xs)) })
const result = {
  date: new Date().toISOString().slice(0, 10),
  commit: codeCommit(),
  baseline: Path.relative(root, Path.resolve(baseline)),
  ...(note === undefined ? {} : { note }),
  loadAverage: Os.loadavg().map((x) => Math.round(x * 10) / 10),
  searches: searches.length,
  rounds,
  block,
  identical: {
    resultLists: searches.length,
    rows: measured.rows,
    differing: measured.differing,
    maxScoreDiff: measured.maxScoreDiff
  },
  cpuMsPerSearch: {
    old: summary(measured.perSearch.old),
    new: summary(measured.perSearch.new),
    sqliteStatementAlone: summary(measured.perSearch.sqlite)
  },
  firstPassCpuMsPerSearch: { old: round3(measured.firstPass.old), new: round3(measured.firstPass.new) },
  newOverOld: summary(measured.perSearch.new.map((x, i) => x / measured.perSearch.old[i])),
  perRound: Object.fromEntries(Object.entries(measured.perSearch).map(([k, xs]) => [k, xs.map(round3)]))
}
console.log(JSON.stringify(result, null, 2))
const out = Path.join(root, "benchmarks/retrieval/search-workload.json")
const all = Fs.existsSync(out) ? JSON.parse(Fs.readFileSync(out, "utf8")) : {}
all[label] = result
Fs.writeFileSync(out, JSON.stringify(all, null, 2) + "\n")
