// One MiniSearch 7.2.0 scenario on the same corpus and queries: addAll in memory, then 200 queries (OR, top 50),
// with the same tokenizer as ours (@deepnote-rag/text: stop words removed) and title boost 2. Prints one JSON line.
import { tokenize } from "@deepnote-rag/text"
import MiniSearch from "minisearch"
import * as Fs from "node:fs"

const [corpus] = process.argv.slice(2)
const queries = JSON.parse(Fs.readFileSync(corpus.replace(/\.jsonl$/, ".queries.json"), "utf8"))
const percentile = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
const t0 = performance.now()
const cpu0 = process.cpuUsage()
const docs = Fs.readFileSync(corpus, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l))
const mini = new MiniSearch({
  fields: ["title", "text"],
  storeFields: ["title", "text"],
  tokenize: (text) => tokenize(text),
  processTerm: (t) => t,
  searchOptions: { boost: { title: 2 }, combineWith: "OR", bm25: { k: 1.2, b: 0.75, d: 0 } }
})
mini.addAll(docs)
const buildMs = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
const latencies = []
for (const q of queries.slice(0, 20)) mini.search(q)
for (const q of queries) {
  const s = performance.now()
  mini.search(q).slice(0, 50)
  latencies.push(performance.now() - s)
}
const t1 = performance.now()
const json = JSON.stringify(mini)
const serializeMs = performance.now() - t1
console.log(JSON.stringify({
  buildS: +(buildMs / 1000).toFixed(1),
  buildCpuS: +((cpu.user + cpu.system) / 1e6).toFixed(1),
  documents: mini.documentCount,
  indexMB: +(json.length / 2 ** 20).toFixed(0),
  serializeS: +(serializeMs / 1000).toFixed(1),
  peakRssMB: +(Math.max(process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024) / 2 ** 20).toFixed(0),
  queryP50Ms: +percentile(latencies, 0.5).toFixed(1),
  queryP95Ms: +percentile(latencies, 0.95).toFixed(1)
}))
