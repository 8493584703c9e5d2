#!/usr/bin/env node
// The alternative to the ingest worker thread, measured: indexing on the main thread in small slices (one transaction
// per slice) with a yield to the event loop (setImmediate) between slices, three uploads at once, while a 10 ms timer
// measures how late the event loop runs it. No HTTP: this is the lower bound of what a request would wait.
// Usage: npm run build && node benchmarks/server/ingest-slices.mjs [--slice 50] [--copies 5] [--corpus FILE]
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Readline from "node:readline"
import { arg, distinctCopies, root, tempDir } from "../lib/bench.mjs"

const require = createRequire(Path.join(root, "apps/server/package.json"))
const { Collections } = await import(require.resolve("@deepnote-rag/retrieval"))
const { Home } = await import(require.resolve("@deepnote-rag/core"))
const { Effect, Layer, Scheduler } = await import(require.resolve("effect"))
const slice = Number(arg("slice", "50"))
const copies = Number(arg("copies", "5"))
const corpus = Path.resolve(arg("corpus", Path.join(root, "../shared/data/corpus/en-multihop.jsonl")))

const home = tempDir()
const lines = Fs.readFileSync(corpus, "utf8").split("\n").filter((l) => l.trim() !== "")
const files = ["a", "b", "c"].map((t) => {
  const file = Path.join(home, `${t}.jsonl`)
  Fs.writeFileSync(file, distinctCopies(lines, t, copies))
  return { tenant: t, file }
})

const lags = []
let last = performance.now()
const probe = setInterval(() => {
  const now = performance.now()
  lags.push(now - last - 10)
  last = now
}, 10)
const ingest = ({ file, tenant }) =>
  Effect.gen(function*() {
    const collections = yield* Collections
    const input = Readline.createInterface({ input: Fs.createReadStream(file) })[Symbol.asyncIterator]()
    let batch = []
    let added = 0
    for (;;) {
      const next = yield* Effect.promise(() => input.next())
      if (!next.done) {
        const d = JSON.parse(next.value)
        batch.push({ id: d.id, title: d.title, text: d.text })
      }
      if (batch.length >= slice || (next.done && batch.length > 0)) {
        added += (yield* collections.add(tenant, batch)).added
        batch = []
        yield* Effect.yieldNow()
      }
      if (next.done) return added
    }
  })
const start = performance.now()
const added = await Effect.runPromise(
  Effect.all(files.map(ingest), { concurrency: "unbounded" }).pipe(
    Effect.withScheduler(Scheduler.makeBatched((run) => void setImmediate(run))),
    Effect.withMaxOpsBeforeYield(64),
    Effect.provide(Collections.layer.pipe(Layer.provide(Home.layer(home))))
  )
)
clearInterval(probe)
lags.sort((a, b) => a - b)
const q = (p) => Math.round(lags[Math.floor(p * lags.length)] * 10) / 10
console.log(JSON.stringify({
  slice,
  added,
  seconds: Math.round((performance.now() - start) / 100) / 10,
  eventLoopLagMs: { p50: q(0.5), p99: q(0.99), max: Math.round(lags[lags.length - 1] * 10) / 10 },
  loadavg: Os.loadavg()
}))
Fs.rmSync(home, { recursive: true, force: true })
