// The cost of the service around one search: Collections.search (span, tokenising, SqlClient statement, row decoding)
// against the same SELECT on a prepared better-sqlite3 statement of a second connection, interleaved query by query
// in one process (so machine load hits both alike), 3 rounds of the 200 queries. Prints one JSON line (ms).
// Usage: node search-overhead.mjs <corpus.jsonl from speed-corpus.mjs> <home dir>   (builds the collection once)
import { Home } from "@deepnote-rag/core"
import { buildMatch, Collections } from "@deepnote-rag/retrieval"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { median } from "../lib/bench.mjs"

const [corpus, home] = process.argv.slice(2)
const queries = JSON.parse(Fs.readFileSync(corpus.replace(/\.jsonl$/, ".queries.json"), "utf8"))
const file = Path.join(home, "collections/bench.sqlite")

const program = Effect.gen(function*() {
  const collections = yield* Collections
  if (!Fs.existsSync(file)) yield* collections.index("bench", [corpus], { batchSize: 5000 })
  const db = new Database(file)
  db.pragma("cache_size = -65536")
  const statement = db.prepare(`SELECT d.id AS id, d.title AS title, d.text AS text, -r.score AS score
     FROM (SELECT rowid, bm25(fts, ?, ?, ?, ?) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?) AS r
     JOIN documents AS d ON d.rowid = r.rowid ORDER BY r.score`)
  const service = []
  const raw = []
  for (let round = 0; round < 3; round++) {
    for (const q of queries) {
      let t = performance.now()
      yield* collections.search("bench", q, { limit: 50, titleWeight: 2 })
      service.push(performance.now() - t)
      t = performance.now()
      const match = buildMatch(q)
      if (match !== undefined) statement.all(2, 1, 2, 1, match, 50)
      raw.push(performance.now() - t)
    }
  }
  db.close()
  const serviceP50 = median(service)
  const rawP50 = median(raw)
  console.log(JSON.stringify({
    serviceP50: +serviceP50.toFixed(2),
    rawP50: +rawP50.toFixed(2),
    overheadP50: +(serviceP50 - rawP50).toFixed(2)
  }))
})

await Effect.runPromise(Effect.scoped(Effect.provide(program, Collections.layer.pipe(Layer.provide(Home.layer(home))))))
