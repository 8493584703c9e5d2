#!/usr/bin/env node
// Would group commit pay? A question's step is one SQLite transaction (`internal/directAppend.ts`: the journal entry,
// its passages, the run's event numbers, the events). This measures the CPU of such steps written one transaction each
// (as now) against the same steps written `--group` at a time in one transaction, each inside its own SAVEPOINT (what a
// group commit that can still fail one step alone would do), in a real store file (made by `deepnote run` on the
// sample: its schema, indexes, foreign keys, WAL and `synchronous = NORMAL`), with the store's own statements.
//
//   npm run build && node benchmarks/cpu/group-commit.mjs [--steps 5000] [--group 8] [--rounds 5]
//
// Rounds alternate the two ways; CPU is the process's user + sys per step. Writes group-commit.txt beside this file.
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { arg, codeCommit, Database, root, sampleRunHome, spread, tempDir } from "../lib/bench.mjs"

const steps = Number(arg("steps", "5000"))
const group = Number(arg("group", "8"))
const rounds = Number(arg("rounds", "5"))

const home = tempDir("deepnote-group-commit-")
try {
  sampleRunHome(home)
  const db = new Database(Path.join(home, "deepnote.sqlite"))
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  const { item_id: itemId, run_id: runId } = db.prepare("SELECT run_id, item_id FROM items LIMIT 1").get()

  // the statements of internal/directAppend.ts
  const insertPassage = db.prepare(
    "INSERT INTO passages (run_id, hash, id, source, title, text) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
  )
  const insertEntry = db.prepare(`INSERT INTO journal (run_id, item_id, seq, kind, request_hash, response, usage,
    prompt_tokens, completion_tokens, latency_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (run_id, item_id, seq) DO NOTHING`)
  const reserve = db.prepare("UPDATE runs SET next_event_seq = next_event_seq + ? WHERE id = ? RETURNING next_event_seq")
  const insertEvent = db.prepare("INSERT INTO events (run_id, seq, item_id, event, created_at) VALUES (?, ?, ?, ?, ?)")

  // sizes of a HotpotQA step as stored (deflated): a 600-byte response, three new passages, two events
  const response = randomBytes(600)
  const event = randomBytes(300)
  const text = randomBytes(500)
  let seq = db.prepare("SELECT coalesce(max(seq), 0) AS n FROM journal").get().n + 1
  const now = new Date().toISOString()
  const step = () => {
    const s = seq++
    for (let p = 0; p < 3; p++) insertPassage.run(runId, `h${s}-${p}`, `p${s}-${p}`, "bench", "Title", text)
    insertEntry.run(runId, itemId, s, "search", `r${s}`, response, null, 10, 20, 1.5, now)
    const end = reserve.get(2, runId).next_event_seq
    insertEvent.run(runId, end - 2, itemId, event, now)
    insertEvent.run(runId, end - 1, itemId, event, now)
  }
  const oneEach = db.transaction(step)
  const savepoint = db.prepare("SAVEPOINT step")
  const release = db.prepare("RELEASE step")
  const grouped = db.transaction((n) => {
    for (let i = 0; i < n; i++) {
      savepoint.run()
      step()
      release.run()
    }
  })
  const ways = {
    "one transaction per step (as now)": () => {
      for (let i = 0; i < steps; i++) oneEach()
    },
    [`${group} steps per transaction, a savepoint each`]: () => {
      for (let i = 0; i < steps; i += group) grouped(Math.min(group, steps - i))
    }
  }
  const cpu = Object.fromEntries(Object.keys(ways).map((k) => [k, []]))
  for (let r = 0; r < rounds; r++) {
    for (const [name, write] of Object.entries(ways)) {
      const before = process.cpuUsage()
      write()
      const used = process.cpuUsage(before)
      cpu[name].push((used.user + used.system) / steps)
    }
  }
  db.close()
  const shown = (s, d) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`
  const [now1, grouped1] = Object.values(cpu)
  const ratios = grouped1.map((g, i) => g / now1[i])
  const lines = [
    `# ${new Date().toISOString()} ${codeCommit()} Node ${process.version}, load ${Os.loadavg().map((x) => x.toFixed(2)).join(" ")}`,
    `# node benchmarks/cpu/group-commit.mjs --steps ${steps} --group ${group} --rounds ${rounds}`,
    ...Object.entries(cpu).map(([name, xs]) => {
      const s = spread(xs)
      return `${name}: ${s.median.toFixed(1)} µs CPU per step (${s.min.toFixed(1)}–${s.max.toFixed(1)})`
    }),
    `grouped / one each, round by round: ${shown(spread(ratios), 2)}`
  ]
  Fs.writeFileSync(Path.join(root, "benchmarks/cpu/group-commit.txt"), lines.join("\n") + "\n")
  console.log(lines.join("\n"))
} finally {
  Fs.rmSync(home, { recursive: true, force: true })
}
