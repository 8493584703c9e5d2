// Where the SQLite time of one BM25 search goes, and whether another statement gives the same top-k for less: the
// searches of search-workload.mjs (benchmarks/.work/hotpot-searches.jsonl, recorded from a 200-question run) on
// prepared better-sqlite3 statements over the HotpotQA dev-300 collection, no Effect. Variants alternate by round.
//
//   npx tsc -b packages/retrieval
//   node benchmarks/retrieval/search-sql-variants.mjs [--rounds 6] [--searches FILE]   → search-sql-variants.json
//
// `same` counts the searches whose ids (in order) and scores equal the current statement's, for the variants that
// return a top-k.
import { Collections } from "@deepnote-rag/retrieval"
import { Home } from "@deepnote-rag/core"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, codeCommit, median, root, tempDir } from "../lib/bench.mjs"

const dataset = Path.resolve(arg("data", Path.join(root, "../shared/data")), "hotpotqa/dev-300.ircot.jsonl")
const rounds = Number(arg("rounds", "6"))
const searchesFile = arg("searches", Path.join(root, "benchmarks/.work/hotpot-searches.jsonl"))
const searches = Fs.readFileSync(searchesFile, "utf8").trim().split("\n").map((l) => JSON.parse(l))

const home = tempDir("deepnote-sql-variants-")
await Effect.runPromise(Effect.scoped(Effect.provide(
  Effect.flatMap(Collections, (c) => c.index("hotpot", [dataset])),
  Collections.layer.pipe(Layer.provide(Home.layer(home)))
)))
const db = new Database(Path.join(home, "collections/hotpot.sqlite"), { readonly: true })
db.pragma("cache_size = -65536")

const joined = (columns) =>
  db.prepare(`SELECT ${columns}, -r.score AS score
    FROM (SELECT rowid, bm25(fts, ?, ?, ?, ?) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?) AS r
    JOIN documents AS d ON d.rowid = r.rowid ORDER BY r.score`)
const current = joined("d.id AS id, d.title AS title, d.text AS text")
const idsOnly = joined("d.id AS id")
const topRowids = db.prepare(
  "SELECT rowid, bm25(fts, ?, ?, ?, ?) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?"
)
const rank = db.prepare(`SELECT d.id AS id, d.title AS title, d.text AS text, -r.rank AS score
  FROM (SELECT rowid, rank FROM fts WHERE fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?) AS r
  JOIN documents AS d ON d.rowid = r.rowid ORDER BY r.rank`)
const matchedRowids = db.prepare("SELECT rowid FROM fts WHERE fts MATCH ?")
const count = db.prepare("SELECT count(*) AS n FROM fts WHERE fts MATCH ?")
// the word columns' filter dropped: the same rows and scores when no query term is a CJK bigram (English)
const withoutColumns = (match) =>
  match.startsWith("{title body} : (") && !match.includes("title_cjk") ? match.slice("{title body} : ".length) : match

const variants = {
  current: (s) => current.all(...s.weights, s.match, s.limit),
  "ORDER BY rank (rank MATCH 'bm25(…)')": (s) => rank.all(s.match, `bm25(${s.weights.join(", ")})`, s.limit),
  "no {title body} filter": (s) => current.all(...s.weights, withoutColumns(s.match), s.limit),
  "ids only (no title, text)": (s) => idsOnly.all(...s.weights, s.match, s.limit),
  "top rowids only (no join)": (s) => topRowids.all(...s.weights, s.match, s.limit),
  "every matching rowid, no bm25": (s) => matchedRowids.all(s.match),
  "count(*) of the matching rows": (s) => count.get(s.match)
}
const comparable = ["ORDER BY rank (rank MATCH 'bm25(…)')", "no {title body} filter"]

const same = {}
for (const name of comparable) {
  same[name] = searches.filter((s) => {
    const a = variants.current(s)
    const b = variants[name](s)
    return a.length === b.length && a.every((r, i) => r.id === b[i].id && r.score === b[i].score)
  }).length
}
let matched = 0
for (const s of searches) matched += count.get(s.match).n

const names = Object.keys(variants)
const perSearch = Object.fromEntries(names.map((n) => [n, []]))
for (let round = 0; round < rounds; round++) {
  const turn = round % names.length
  for (const name of [...names.slice(turn), ...names.slice(0, turn)]) {
    const since = process.cpuUsage()
    for (const s of searches) variants[name](s)
    const u = process.cpuUsage(since)
    perSearch[name].push((u.user + u.system) / 1000 / searches.length)
  }
}
db.close()
Fs.rmSync(home, { recursive: true, force: true })

const round3 = (x) => Math.round(x * 1000) / 1000
const summary = (xs) => ({ median: round3(median(xs)), min: round3(Math.min(...xs)), max: round3(Math.max(...xs)) })
const result = {
  date: new Date().toISOString().slice(0, 10),
  commit: codeCommit(),
  loadAverage: Os.loadavg().map((x) => Math.round(x * 10) / 10),
  searches: searches.length,
  matchingRowsPerSearch: Math.round(matched / searches.length),
  rounds,
  sameTopKAsCurrent: same,
  cpuMsPerSearch: Object.fromEntries(names.map((n) => [n, summary(perSearch[n])]))
}
console.log(JSON.stringify(result, null, 2))
const out = Path.join(root, "benchmarks/retrieval/search-sql-variants.json")
Fs.writeFileSync(out, JSON.stringify(result, null, 2) + "\n")
