// Every profile side by side with the extractive (non-neural) engine on HotpotQA dev-300 (IRCoT), MuSiQue dev-100 and
// 2WikiMultihopQA dev-84: answer quality, gold-passage recall over the passages each method read, and its cost per
// question (role calls = LLM calls with an LLM engine, retrievals). The profiles come from the registry.
// Run from the repo root:
//   npx tsc -b packages/extractive packages/retrieval packages/eval packages/core
//   node benchmarks/quality/extractive-profiles.mjs [--data DIR] [--limit N] [--profiles a,b] [--out DIR]
// Writes profiles.json and profiles.md next to this script (or into --out DIR).
import { answerQuestion, defaultRunConfig, Home, Profile } from "@deepnote-rag/core"
import { goldRecall, loadDataset } from "@deepnote-rag/eval"
import { Extractive } from "@deepnote-rag/extractive"
import { Collections, FtsRetriever } from "@deepnote-rag/retrieval"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { codeCommit } from "../lib/bench.mjs"
import { answerQuality, answerScores, mean, pct, r2 } from "../lib/scores.mjs"

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    limit: { type: "string" },
    out: { type: "string", default: Path.dirname(new URL(import.meta.url).pathname) },
    profiles: { type: "string", default: Profile.literals.join(",") }
  }
})
const profiles = args.profiles.split(",")
const datasets = [
  { name: "HotpotQA dev-300", file: "hotpotqa/dev-300.ircot.jsonl", format: "ircot" },
  { name: "MuSiQue dev-100", file: "musique/dev-100.musique.jsonl", format: "musique" },
  { name: "2Wiki dev-84", file: "2wikimultihopqa/dev-84.2wiki.jsonl", format: "2wiki" }
]
const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-profiles-bench-"))

const started = performance.now()
const results = []
for (const [d, dataset] of datasets.entries()) {
  const file = Path.join(args.data, dataset.file)
  const collection = `bench${d}`
  const layer = Layer.mergeAll(Extractive.layer, FtsRetriever.layer({ collection }), NodeFileSystem.layer).pipe(
    Layer.provideMerge(Collections.layer.pipe(Layer.provide(Home.layer(home))))
  )
  const runtime = ManagedRuntime.make(layer)
  // The corpus: every paragraph of the file's questions (gold and distractors), as the IRCoT-style setting.
  const ingest = await runtime.runPromise(Effect.flatMap(Collections, (c) => c.index(collection, [file], {})))
  const { questions } = await runtime.runPromise(
    loadDataset(file, { format: dataset.format, ...(args.limit ? { limit: Number(args.limit) } : {}) })
  )
  for (const profile of profiles) {
    const config = { ...defaultRunConfig, profile }
    const t0 = performance.now()
    const per = []
    for (const question of questions) {
      const r = await runtime.runPromise(answerQuestion(question, config))
      const golds = question.answers ?? []
      const recall = goldRecall(question, r)
      per.push({
        ...answerScores(r.answer.text, golds),
        recall: recall ?? 0,
        allGold: recall === 1 ? 1 : 0,
        read: r.counters.uniquePassages,
        calls: r.counters.llm.total,
        retrievals: r.counters.retrievals,
        steps: r.counters.steps,
        retrieved: r.counters.subqueries?.retrieved,
        parametric: r.counters.subqueries?.parametric,
        stop: r.stopReason
      })
    }
    const pick = (key) => mean(per.map((s) => s[key]))
    const stops = {}
    for (const s of per) stops[s.stop] = (stops[s.stop] ?? 0) + 1
    results.push({
      dataset: dataset.name,
      passages: ingest.passages ?? ingest.documents ?? undefined,
      profile,
      questions: per.length,
      ...answerQuality(per),
      goldRecall: pct(pick("recall")),
      allGoldRead: pct(pick("allGold")),
      passagesRead: r2(pick("read")),
      llmCallsPerQuestion: r2(pick("calls")),
      retrievalsPerQuestion: r2(pick("retrievals")),
      steps: r2(pick("steps")),
      ...(per[0]?.retrieved === undefined
        ? {}
        : { subqueriesRetrieved: r2(pick("retrieved")), subqueriesParametric: r2(pick("parametric")) }),
      stopReasons: stops,
      ms: Math.round(performance.now() - t0)
    })
    console.error(`${dataset.name} ${profile}: ${JSON.stringify(results.at(-1))}`)
  }
  await runtime.dispose()
}
Fs.rmSync(home, { recursive: true, force: true })

const commit = codeCommit()
const wallS = Math.round((performance.now() - started) / 100) / 10
Fs.writeFileSync(
  Path.join(args.out, "profiles.json"),
  JSON.stringify({ benchmark: "extractive-profiles", engine: "extractive (non-neural baseline)", config: "defaults", commit, wallS, results }, null, 2) + "\n"
)
const lines = [
  "# Every profile, extractive engine, three multi-hop sets",
  "",
  "Engine: the offline extractive baseline (not a language model), so the numbers compare the *loops* (what they read, how often they call and retrieve), not methods with a model. Corpus per set: every paragraph of its questions (embedded FTS5/BM25). Defaults for every knob (top_k 5, recall_k 50, 2 queries per step, max_step 3, max_failure 2, 15 passages; adaptive-note T_IU 1; renact T 5; deeprag 5 subqueries). Scores ×100. Gold recall: gold passages among the unique passages the method read; all gold: questions whose every gold passage was read. Calls: role calls per question (one LLM call each with an LLM engine).",
  ""
]
for (const dataset of datasets) {
  const rows = results.filter((r) => r.dataset === dataset.name)
  lines.push(`## ${dataset.name} (${rows[0]?.questions ?? 0} questions)`, "")
  lines.push("| profile | EM | F1 | Acc | gold recall | all gold read | passages read | calls/q | retrievals/q | steps | stop reasons |")
  lines.push("|---|---|---|---|---|---|---|---|---|---|---|")
  for (const r of rows) {
    const sub = r.subqueriesRetrieved === undefined ? "" : ` (subqueries: ${r.subqueriesRetrieved} retrieved, ${r.subqueriesParametric} parametric)`
    lines.push(
      `| ${r.profile} | ${r.em} | ${r.f1} | ${r.acc} | ${r.goldRecall} | ${r.allGoldRead} | ${r.passagesRead} | ${r.llmCallsPerQuestion} | ${r.retrievalsPerQuestion}${sub} | ${r.steps} | ${Object.entries(r.stopReasons).map(([k, v]) => `${k} ${v}`).join(", ")} |`
    )
  }
  lines.push("")
}
lines.push(`Wall time ${wallS} s on Node ${process.version}; code ${commit}.`, "")
Fs.writeFileSync(Path.join(args.out, "profiles.md"), lines.join("\n"))
console.log(lines.join("\n"))
