// What checking a store on open costs: builds a ~100 MB SQLite store through the store's own API (7 000 items by
// default, 10 journaled calls of ~1 KB each per item, like a finished run's journal), then times the check every open
// runs (`inspectStoreFile`: header, page count, a read-only probe of the schema) and a full `PRAGMA quick_check`, each
// from the page cache and from disk (the file evicted first). Results: `results.md` beside this file.
// Reproduce: `npx tsc -b && node packages/store/benchmarks/quick-check.mjs [items]`.
import { Question } from "@deepnote-rag/core"
import Sqlite from "better-sqlite3"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { inspectStoreFile, Journal, RunManifest, RunStore, Store } from "../dist/src/index.js"
import { defaultRunConfig } from "@deepnote-rag/core"

const items = Number(process.argv[2] ?? 7_000)
const callsPerItem = 10
const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-quick-check-"))
const filename = Path.join(dir, "deepnote.sqlite")
const filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(18)

const build = Effect.gen(function*() {
  const store = yield* RunStore
  const journal = yield* Journal
  const manifest = new RunManifest({
    config: defaultRunConfig,
    configHash: "h",
    codeVersion: "bench",
    dataset: { path: "q.jsonl", hash: "d" }
  })
  const run = yield* store.createRun({ manifest, id: "r-bench" })
  const questions = Array.from({ length: items }, (_, i) => new Question({ id: `q${i}`, text: `question ${i}?`, answers: ["a"] }))
  yield* store.addItems(run.id, questions)
  for (let start = 0; start < items; start += 100) {
    const batch = []
    for (let i = start; i < Math.min(items, start + 100); i++) {
      for (let seq = 0; seq < callsPerItem; seq++) {
        batch.push({
          runId: run.id,
          itemId: `q${i}`,
          seq,
          kind: seq === 0 ? "retrieve" : "plan",
          requestHash: `${i}-${seq}`.padEnd(64, "0"),
          response: { text: `${filler}${i}-${seq}` },
          usage: { promptTokens: 900, completionTokens: 60 },
          latencyMs: 120
        })
      }
    }
    yield* journal.appendAll(batch)
  }
})

const started = Date.now()
await Effect.runPromise(build.pipe(Effect.provide(Store.layer({ url: filename }))))
const buildMs = Date.now() - started
const sizeMb = Fs.statSync(filename).size / 1e6

const time = (f) => {
  const t = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - t) / 1e6
}
// evicts the file from the page cache (GNU dd: posix_fadvise DONTNEED), so a read comes from disk as after a reboot
const evict = () => spawnSync("dd", [`if=${filename}`, "iflag=nocache", "count=0", "status=none"]).status === 0
const timeAsync = async (f) => {
  const t = process.hrtime.bigint()
  await f()
  return Number(process.hrtime.bigint() - t) / 1e6
}
const quickCheck = () => {
  const db = new Sqlite(filename, { readonly: true })
  db.pragma("quick_check")
  db.close()
}
const samples = { openCheck: [], openCheckCold: [], quickCheck: [], quickCheckCold: [] }
for (let i = 0; i < 3; i++) {
  if (evict()) samples.openCheckCold.push(await timeAsync(() => Effect.runPromise(inspectStoreFile(filename))))
  samples.openCheck.push(await timeAsync(() => Effect.runPromise(inspectStoreFile(filename))))
  if (evict()) samples.quickCheckCold.push(time(quickCheck))
  samples.quickCheck.push(time(quickCheck))
}
Fs.rmSync(dir, { recursive: true, force: true })
const round = (xs) => xs.map((x) => Math.round(x))
console.log(JSON.stringify({
  items,
  sizeMb: Math.round(sizeMb),
  buildMs,
  ms: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(v)]))
}))
