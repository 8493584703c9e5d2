// Retrieval quality of the embedded FTS5 index: gold-passage recall@k on HotpotQA dev-300 (IRCoT) and CMRC 2018.
// Run: npx tsc -b packages/retrieval && node benchmarks/retrieval/quality.mjs   (from the repo root)
import Database from "better-sqlite3"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { buildMatch, FtsIndex } from "@deepnote-rag/retrieval"
import { hotpotCorpus } from "../lib/hotpotqa.mjs"

const data = "../shared/data"
const out = Path.dirname(new URL(import.meta.url).pathname)
const readJsonl = (file) => Fs.readFileSync(Path.join(data, file), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-quality-"))
const ks = [2, 5, 10]
const grid = [0.5, 1, 1.5, 2, 3, 5, 8, 12]

// == HotpotQA: corpus = every paragraph of the 300 questions; gold = contexts with is_supporting (title + text)
const questions = readJsonl("hotpotqa/dev-300.ircot.jsonl")
const { corpus, items } = hotpotCorpus(questions)
const sharedIds = new Set(readJsonl("corpus/en-multihop.jsonl").map((r) => r.id))
const idsInSharedCorpus = [...corpus.keys()].filter((id) => sharedIds.has(id)).length

const recall = (rank) => {
  const sums = Object.fromEntries(ks.map((k) => [k, 0]))
  for (const item of items) {
    const ids = rank(item.question)
    for (const k of ks) sums[k] += ids.slice(0, k).filter((id) => item.gold.has(id)).length / item.gold.size
  }
  return Object.fromEntries(ks.map((k) => [`R@${k}`, +(sums[k] / items.length).toFixed(4)]))
}

// Baseline: plain BM25 over one column "title text", raw unicode61, no stop words, no stemming, weight 1.
const plain = new Database(Path.join(tmp, "plain.sqlite"))
plain.exec("CREATE VIRTUAL TABLE f USING fts5(id UNINDEXED, body, tokenize='unicode61 remove_diacritics 2')")
const ins = plain.prepare("INSERT INTO f (id, body) VALUES (?, ?)")
plain.transaction(() => { for (const d of corpus.values()) ins.run(d.id, `${d.title} ${d.text}`) })()
const plainSearch = plain.prepare("SELECT id FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10")
const plainQuery = (q) => (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((t) => `"${t}"`).join(" OR ")
const results = { hotpotqa: { questions: items.length, passages: corpus.size, idsInSharedCorpus, runs: [] } }
results.hotpotqa.runs.push({ index: "plain BM25, one column title+text, no stop words, no stemming", titleWeight: 1, ...recall((q) => plainSearch.all(plainQuery(q)).map((r) => r.id)) })

for (const stemming of ["none", "porter"]) {
  const index = FtsIndex.open(Path.join(tmp, `hotpot-${stemming}.sqlite`), { create: true, settings: { stemming } })
  index.addBatch([...corpus.values()], "skip")
  index.finish(true)
  for (const title of grid) {
    const rank = (q) => index.search(buildMatch(q), 10, { title, text: 1, cjk: 1 }).map((r) => r.id)
    results.hotpotqa.runs.push({ index: `ours (stop words removed, stemming ${stemming})`, titleWeight: title, ...recall(rank) })
  }
  index.close()
}

// == The same questions against the whole shared English corpus (11,084 passages: more distractors)
{
  const big = FtsIndex.open(Path.join(tmp, "en-multihop.sqlite"), { create: true })
  big.addBatch(readJsonl("corpus/en-multihop.jsonl"), "skip")
  big.finish(true)
  results.hotpotqaFullCorpus = { questions: items.length, passages: big.count(), runs: [] }
  for (const title of grid) {
    const rank = (q) => big.search(buildMatch(q), 10, { title, text: 1, cjk: 1 }).map((r) => r.id)
    results.hotpotqaFullCorpus.runs.push({ index: "ours (stemming porter)", titleWeight: title, ...recall(rank) })
  }
  big.close()
}

// == CMRC 2018: 848 Chinese paragraphs, 2135 questions with their paragraph_id
const zhQuestions = readJsonl("cmrc2018/dev-questions.jsonl")
const zh = FtsIndex.open(Path.join(tmp, "zh.sqlite"), { create: true })
zh.addBatch(readJsonl("corpus/zh-cmrc2018.jsonl"), "skip")
zh.finish(true)
results.cmrc2018 = { questions: zhQuestions.length, passages: zh.count(), runs: [] }
for (const [title, cjk] of [[1, 1], [2, 1], [1, 0.5], [1, 2], [1, 0]]) {
  const hits = Object.fromEntries([1, 5, 10].map((k) => [`R@${k}`, 0]))
  for (const q of zhQuestions) {
    const ids = zh.search(buildMatch(q.question), 10, { title, text: 1, cjk }).map((r) => r.id)
    for (const k of [1, 5, 10]) if (ids.slice(0, k).includes(q.paragraph_id)) hits[`R@${k}`]++
  }
  results.cmrc2018.runs.push({ titleWeight: title, cjkWeight: cjk, ...Object.fromEntries(Object.entries(hits).map(([k, v]) => [k, +(v / zhQuestions.length).toFixed(4)])) })
}
zh.close()
plain.close()
Fs.rmSync(tmp, { recursive: true, force: true })

const best = results.hotpotqa.runs.filter((r) => r.index.startsWith("ours")).sort((a, b) => b["R@5"] - a["R@5"] || b["R@2"] - a["R@2"])[0]
results.best = best
results.machine = { node: process.version, cpus: Os.cpus().length, date: new Date().toISOString() }
Fs.writeFileSync(Path.join(out, "quality.json"), JSON.stringify(results, null, 2) + "\n")
console.log(JSON.stringify(results, null, 2))
