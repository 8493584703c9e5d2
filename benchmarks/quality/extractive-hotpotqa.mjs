// Answer quality and gold-passage recall of the extractive (non-neural) engine on HotpotQA dev-300 (IRCoT), per
// profile, through the real pipeline (`answerQuestion` from @deepnote-rag/core) over the embedded FTS5 index.
// Run from the repo root:
//   npx tsc -b packages/extractive packages/retrieval packages/eval packages/core
//   node benchmarks/quality/extractive-hotpotqa.mjs [--data FILE] [--limit N] [--out DIR]
// Writes results.json and results.md next to this script (or into --out DIR); --details FILE also writes one JSON line
// per question (gold titles, each profile's answer, the deepnote loop's queries and passages by step).
import { answerQuestion, defaultRunConfig, Home, Retriever } from "@deepnote-rag/core"
import { loadDataset } from "@deepnote-rag/eval"
import { Extractive } from "@deepnote-rag/extractive"
import { Collections, FtsRetriever, passageId } from "@deepnote-rag/retrieval"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { codeCommit } from "../lib/bench.mjs"
import { answerQuality, answerScores, mean, pct } from "../lib/scores.mjs"

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data/hotpotqa/dev-300.ircot.jsonl" },
    limit: { type: "string" },
    out: { type: "string", default: Path.dirname(new URL(import.meta.url).pathname) },
    profiles: { type: "string", default: "vanilla,init-note,deepnote,paper" },
    details: { type: "string" }
  }
})
const profiles = args.profiles.split(",")
for (const needed of ["vanilla", "deepnote", "paper"]) if (!profiles.includes(needed)) profiles.push(needed)
const collection = "hotpot"
const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-extractive-bench-"))

// == Gold passages: contexts with is_supporting, by the id ingestion gives them (SHA-1 of title + text).
const records = Fs.readFileSync(args.data, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
const goldIds = new Map(records.map((r) => [
  r.question_id,
  new Set(r.contexts.filter((c) => c.is_supporting).map((c) => passageId(c.title, c.paragraph_text)))
]))

const collections = Collections.layer.pipe(Layer.provide(Home.layer(home)))
const layer = Layer.mergeAll(Extractive.layer, FtsRetriever.layer({ collection }), NodeFileSystem.layer).pipe(
  Layer.provideMerge(collections)
)
const runtime = ManagedRuntime.make(layer)

const started = performance.now()
const ingest = await runtime.runPromise(Effect.flatMap(Collections, (c) => c.index(collection, [args.data], { format: "ircot" })))
const dataset = await runtime.runPromise(
  loadDataset(args.data, { format: "ircot", ...(args.limit ? { limit: Number(args.limit) } : {}) })
)
const questions = dataset.questions

const goldIn = (id, passages) => [...goldIds.get(id)].filter((g) => passages.some((p) => p.id === g))
const recallOf = (id, passages) => goldIn(id, passages).length / goldIds.get(id).size

// == Every profile over every question (sequential: the index is synchronous SQLite, the engine is CPU-only)
const runs = {}
for (const profile of profiles) {
  const config = { ...defaultRunConfig, profile }
  const t0 = performance.now()
  runs[profile] = []
  for (const question of questions) {
    const result = await runtime.runPromise(answerQuestion(question, config))
    runs[profile].push(result)
  }
  runs[profile].ms = performance.now() - t0
}

// == Single retrieval at larger budgets: top-N of the question alone, N = 5, 10, 15, 20 and N = what the loop read
const budgets = [5, 10, 15, 20]
const single = (question, topK) =>
  runtime.runPromise(Effect.flatMap(Retriever, (r) =>
    r.search({
      queries: [question.text],
      recallK: Math.max(topK, defaultRunConfig.recallK),
      topK,
      exclude: new Set(),
      rerankQuery: question.text,
      context: { questionId: question.id, language: "en", config: defaultRunConfig, step: 0 }
    })))
const singleRecall = Object.fromEntries([...budgets, "loop"].map((b) => [b, []]))
for (const [i, question] of questions.entries()) {
  const ranked = await single(question, 40)
  for (const b of budgets) singleRecall[b].push(recallOf(question.id, ranked.slice(0, b)))
  singleRecall.loop.push(recallOf(question.id, ranked.slice(0, runs.deepnote[i].trace.passages.length)))
}
// Gold recall of the loops after each step (passages read up to that step), with the mean number read.
const byStep = (profile) =>
  [0, 1, 2, 3].map((step) => {
    const upTo = runs[profile].map((r) => r.trace.passages.filter((e) => e.step <= step).map((e) => e.passage))
    return {
      step,
      passagesRead: Math.round(mean(upTo.map((ps) => ps.length)) * 10) / 10,
      recall: pct(mean(upTo.map((ps, i) => recallOf(questions[i].id, ps))))
    }
  })

// == Scores
const rows = profiles.map((profile) => {
  const results = runs[profile]
  const perQuestion = results.map((r, i) => {
    const q = questions[i]
    const golds = q.answers ?? []
    const initial = r.trace.passages.filter((e) => e.step === 0).map((e) => e.passage)
    const all = r.trace.passages.map((e) => e.passage)
    return {
      ...answerScores(r.answer.text, golds),
      recallInitial: recallOf(q.id, initial),
      recallAll: recallOf(q.id, all),
      passagesRead: all.length,
      roleCalls: r.counters.llm.total,
      steps: r.counters.steps
    }
  })
  const pick = (key) => mean(perQuestion.map((s) => s[key]))
  return {
    profile,
    questions: results.length,
    ...answerQuality(perQuestion),
    recallFirstRetrieval: pct(pick("recallInitial")),
    recallAllRead: pct(pick("recallAll")),
    bothGoldRead: pct(mean(perQuestion.map((s) => (s.recallAll === 1 ? 1 : 0)))),
    passagesRead: Math.round(pick("passagesRead") * 10) / 10,
    roleCalls: Math.round(pick("roleCalls") * 100) / 100,
    steps: Math.round(pick("steps") * 100) / 100,
    ms: Math.round(results.ms)
  }
})

// Questions where the loop read a gold paragraph that vanilla's single top-5 retrieval missed.
const gains = (profile) =>
  questions.flatMap((q, i) => {
    const vanillaRead = runs.vanilla[i].trace.passages.map((e) => e.passage)
    const loopRead = runs[profile][i].trace.passages
    const found = loopRead.filter((e) => goldIds.get(q.id).has(e.passage.id) && !vanillaRead.some((p) => p.id === e.passage.id))
    return found.length === 0 ? [] : [{ id: q.id, question: q.text, steps: [...new Set(found.map((e) => e.step))], titles: found.map((e) => e.passage.title) }]
  })
const lost = (profile) =>
  questions.filter((q, i) => {
    const vanillaGold = goldIn(q.id, runs.vanilla[i].trace.passages.map((e) => e.passage))
    const loopGold = goldIn(q.id, runs[profile][i].trace.passages.map((e) => e.passage))
    return vanillaGold.some((g) => !loopGold.includes(g))
  }).length
const stopReasons = Object.fromEntries(["deepnote", "paper"].map((p) => {
  const counts = {}
  for (const r of runs[p]) counts[r.stopReason] = (counts[r.stopReason] ?? 0) + 1
  return [p, counts]
}))

const results = {
  benchmark: "extractive-hotpotqa",
  engine: "extractive (non-neural baseline)",
  data: Path.basename(args.data),
  corpus: { passages: ingest.documents, ingestMs: ingest.ms },
  config: { topK: defaultRunConfig.topK, recallK: defaultRunConfig.recallK, numQueries: defaultRunConfig.numQueries, maxStep: defaultRunConfig.maxStep, maxFailure: defaultRunConfig.maxFailure, maxUniquePassages: defaultRunConfig.maxUniquePassages },
  metrics: "EM/F1: SQuAD-normalised (Unicode punctuation), max over gold aliases; Acc: gold is a case-insensitive substring of the prediction (@deepnote-rag/eval squadEm, squadF1, substringAccuracy)",
  profiles: rows,
  singleRetrieval: Object.fromEntries(Object.entries(singleRecall).map(([b, xs]) => [b === "loop" ? "sameAsDeepnoteLoop" : `top${b}`, pct(mean(xs))])),
  loopRecallByStep: { deepnote: byStep("deepnote"), paper: byStep("paper") },
  goldFoundBeyondVanilla: Object.fromEntries(["deepnote", "paper"].map((p) => [p, { questions: gains(p).length, goldLostVersusVanilla: lost(p) }])),
  stopReasons,
  examples: gains("deepnote").slice(0, 10),
  code: codeCommit(),
  node: process.version,
  wallMs: Math.round(performance.now() - started)
}

const table = [
  "| profile | EM | F1 | Acc | gold recall, first retrieval (top-5) | gold recall, all passages read | both gold read | passages read | role calls | steps |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ...rows.map((r) =>
    `| ${r.profile} | ${r.em} | ${r.f1} | ${r.acc} | ${r.recallFirstRetrieval} | ${r.recallAllRead} | ${r.bothGoldRead} | ${r.passagesRead} | ${r.roleCalls} | ${r.steps} |`
  )
]
const markdown = [
  `# Extractive engine on HotpotQA dev (${questions.length} questions, IRCoT)`,
  "",
  `Engine: the offline extractive baseline (not a language model). Corpus: every context paragraph of the questions (${ingest.documents} passages, embedded FTS5/BM25). Defaults: top_k ${results.config.topK}, ${results.config.numQueries} queries per step, max_step ${results.config.maxStep}, max_failure ${results.config.maxFailure}. Scores ×100.`,
  "",
  ...table,
  "",
  "Gold recall by passages read: the loops after each step vs single retrieval of the question with a larger top-k.",
  "",
  "| reader | after step 0 | after step 1 | after step 2 | after step 3 |",
  "|---|---|---|---|---|",
  ...["deepnote", "paper"].map((p) => `| ${p} loop | ${results.loopRecallByStep[p].map((s) => `${s.recall} (${s.passagesRead} read)`).join(" | ")} |`),
  `| single retrieval | ${budgets.map((b) => `${results.singleRetrieval[`top${b}`]} (top-${b})`).join(" | ")} |`,
  "",
  `- Single retrieval with exactly as many passages as the deepnote loop read for each question: gold recall ${results.singleRetrieval.sameAsDeepnoteLoop} (loop: ${rows.find((r) => r.profile === "deepnote").recallAllRead}).`,
  `- Questions where the deepnote loop read a gold paragraph that vanilla's top-5 missed: ${results.goldFoundBeyondVanilla.deepnote.questions} (paper profile: ${results.goldFoundBeyondVanilla.paper.questions}). Questions where the loop lost a gold paragraph vanilla had: ${results.goldFoundBeyondVanilla.deepnote.goldLostVersusVanilla} (the first retrieval is the same, so 0).`,
  `- Stop reasons: deepnote ${JSON.stringify(stopReasons.deepnote)}; paper ${JSON.stringify(stopReasons.paper)}.`,
  `- ${results.metrics}.`,
  `- Wall time ${(results.wallMs / 1000).toFixed(1)} s on Node ${process.version} (ingest ${ingest.ms} ms); code ${results.code}.`,
  ""
].join("\n")

if (args.details) {
  const gold = (id) => records.find((r) => r.question_id === id).contexts.filter((c) => c.is_supporting).map((c) => c.title)
  const lines = questions.map((q, i) => JSON.stringify({
    id: q.id,
    question: q.text,
    answers: q.answers,
    gold: gold(q.id),
    predictions: Object.fromEntries(profiles.map((p) => [p, runs[p][i].answer.text])),
    deepnote: [0, 1, 2, 3].map((step) => ({
      step,
      queries: runs.deepnote[i].trace.queries.filter((e) => e.step === step).map((e) => e.query),
      passages: runs.deepnote[i].trace.passages.filter((e) => e.step === step).map((e) => e.passage.title),
      verdict: runs.deepnote[i].trace.notes.find((n) => n.step === step)?.verdict?.better
    }))
  }))
  Fs.mkdirSync(Path.dirname(Path.resolve(args.details)), { recursive: true })
  Fs.writeFileSync(args.details, lines.join("\n") + "\n")
}

Fs.mkdirSync(args.out, { recursive: true })
Fs.writeFileSync(Path.join(args.out, "results.json"), JSON.stringify(results, null, 2) + "\n")
Fs.writeFileSync(Path.join(args.out, "results.md"), markdown)
console.log(markdown)
await runtime.dispose()
Fs.rmSync(home, { recursive: true, force: true })
