// Records every BM25 search a process runs (its MATCH expression, limit and column weights), one JSON line each, to
// the file named by DEEPNOTE_BENCH_SEARCHES; loaded before the command, e.g. a `deepnote run --engine llm` on the
// simulator, so search-workload.mjs replays the searches of a real run:
//
//   DEEPNOTE_BENCH_SEARCHES=searches.jsonl node --import ./benchmarks/retrieval/search-capture.mjs \
//     apps/cli/dist/src/main.js run …
//
// It wraps better-sqlite3's `Database.prototype.prepare` in this process only; nothing else is changed.
import * as Fs from "node:fs"
import { createRequire } from "node:module"

const Database = createRequire(import.meta.url)("../../node_modules/better-sqlite3")
const out = Fs.openSync(process.env.DEEPNOTE_BENCH_SEARCHES, "a")

const prepare = Database.prototype.prepare
Database.prototype.prepare = function(sql, ...rest) {
  const statement = prepare.call(this, sql, ...rest)
  if (!/fts MATCH/u.test(sql)) return statement
  for (const method of ["all", "iterate", "raw"]) {
    const original = statement[method]
    if (typeof original !== "function") continue
    statement[method] = function(...args) {
      if (method !== "raw" && args.length === 6) {
        const [title, text, titleCjk, textCjk, match, limit] = args
        Fs.writeSync(out, JSON.stringify({ match, limit, weights: [title, text, titleCjk, textCjk] }) + "\n")
      }
      return original.apply(this, args)
    }
  }
  return statement
}
