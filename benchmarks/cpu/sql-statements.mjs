// Times every SQLite statement of a process by its SQL text, and prints the totals to stderr at exit. A diagnostic for
// benchmarks/cpu (where the run's SQLite time goes: retrieval or the store), loaded before the command:
//
//   node --import ./benchmarks/cpu/sql-statements.mjs apps/cli/dist/src/main.js run …
//
// It wraps better-sqlite3's `Database.prototype.prepare` in this process only; nothing else is changed.
import { createRequire } from "node:module"

const Database = createRequire(import.meta.url)("../../node_modules/better-sqlite3")

const stats = new Map()
const prepare = Database.prototype.prepare
Database.prototype.prepare = function (sql, ...rest) {
  const statement = prepare.call(this, sql, ...rest)
  const key = sql.replace(/\s+/gu, " ").slice(0, 100)
  for (const method of ["run", "all", "get", "iterate", "raw"]) {
    const original = statement[method]
    if (typeof original !== "function") continue
    statement[method] = function (...args) {
      const start = process.hrtime.bigint()
      try {
        return original.apply(this, args)
      } finally {
        const entry = stats.get(key) ?? { calls: 0, ns: 0n }
        entry.calls += 1
        entry.ns += process.hrtime.bigint() - start
        stats.set(key, entry)
      }
    }
  }
  return statement
}

process.on("exit", () => {
  let total = 0n
  for (const entry of stats.values()) total += entry.ns
  const lines = [`SQLite statements: ${(Number(total) / 1e6).toFixed(0)} ms in all`, "  calls       ms  statement"]
  for (const [sql, entry] of [...stats].sort((a, b) => Number(b[1].ns - a[1].ns)).slice(0, 15)) {
    lines.push(`${String(entry.calls).padStart(7)} ${(Number(entry.ns) / 1e6).toFixed(1).padStart(8)}  ${sql}`)
  }
  process.stderr.write(lines.join("\n") + "\n")
})
