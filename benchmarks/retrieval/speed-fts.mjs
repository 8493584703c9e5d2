// One FTS5 scenario: ingest the JSONL through Collections.index (parse, validate, tokenise, insert, optimize), then
// 200 queries through Collections.search (tokenise, MATCH, BM25 top-50, join); then, with a new Collections (files
// closed), the first search (open, checks, query) and the first write of one passage (the whole-file check that
// precedes a session's first write, and the insert). Prints one JSON line.
import { Home } from "@deepnote-rag/core"
import { Collections } from "@deepnote-rag/retrieval"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

const [corpus, work] = process.argv.slice(2)
const home = Path.join(work, "home")
const queries = JSON.parse(Fs.readFileSync(corpus.replace(/\.jsonl$/, ".queries.json"), "utf8"))
const percentile = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
let peakRss = 0
const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200)

const program = Effect.gen(function*() {
  const collections = yield* Collections
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const summary = yield* collections.index("bench", [corpus], { batchSize: 5000 })
  const buildMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const buildCpuMs = (cpu.user + cpu.system) / 1000
  const latencies = []
  for (const q of queries.slice(0, 20)) yield* collections.search("bench", q, { limit: 50 })
  for (const q of queries) {
    const s = performance.now()
    yield* collections.search("bench", q, { limit: 50, titleWeight: 2 })
    latencies.push(performance.now() - s)
  }
  const info = yield* collections.info("bench")
  return { buildMs, buildCpuMs, summary, latencies, sizeBytes: info.sizeBytes }
})

const reopen = Effect.gen(function*() {
  const collections = yield* Collections
  const t0 = performance.now()
  yield* collections.search("bench", queries[0], { limit: 50 })
  const t1 = performance.now()
  yield* collections.add("bench", [{ id: "extra", title: "Extra", text: "one more passage" }])
  return { openSearchMs: t1 - t0, firstWriteMs: performance.now() - t1 }
})

const layer = Collections.layer.pipe(Layer.provide(Home.layer(home)))
const r = await Effect.runPromise(Effect.scoped(Effect.provide(program, layer)))
const reopened = await Effect.runPromise(Effect.scoped(Effect.provide(reopen, layer)))
clearInterval(sample)
peakRss = Math.max(peakRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024)
Fs.rmSync(home, { recursive: true, force: true })
console.log(JSON.stringify({
  buildS: +(r.buildMs / 1000).toFixed(1),
  buildCpuS: +(r.buildCpuMs / 1000).toFixed(1),
  documents: r.summary.documents,
  indexMB: +(r.sizeBytes / 2 ** 20).toFixed(0),
  peakRssMB: +(peakRss / 2 ** 20).toFixed(0),
  queryP50Ms: +percentile(r.latencies, 0.5).toFixed(1),
  queryP95Ms: +percentile(r.latencies, 0.95).toFixed(1),
  openSearchMs: +reopened.openSearchMs.toFixed(1),
  firstWriteMs: +reopened.firstWriteMs.toFixed(1)
}))
