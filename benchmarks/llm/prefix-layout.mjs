// Prefix-cache hit rate per prompt layout (`role-first` vs `shared-prefix`), the real pipeline against the simulator's
// prefix cache (vLLM-style: 16-token blocks chained by hash, LRU over the KV cache's blocks).
// Build first:  npx tsc -b apps/llm-sim packages/llm
// Run:          node benchmarks/llm/prefix-layout.mjs [--questions 200] [--concurrency 64] [--data ../shared/data] [--experiment]
// Writes benchmarks/llm/prefix-layout.json and prefix-layout.md (with --experiment: prefix-layout-experiment.*).
import { Passage, profiles, Question, RunConfig } from "@deepnote-rag/core"
import { instructionsFor, layouts, messages, section, sharedSystem } from "@deepnote-rag/llm"
import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { arg, root } from "../lib/bench.mjs"
import { phase } from "./pipeline.mjs"
import { makeWorkload, retrieverLayer } from "./workload.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))
const N = Number(arg("questions", "200"))
const CONCURRENCY = Number(arg("concurrency", "64"))
const DATA = arg("data", Path.join(root, "../shared/data"))
const SEQS = 64
const PROFILE = "deepnote"
// `--experiment`: also measure a layout that is not built (every role's instructions in the shared system message)
const EXPERIMENT = process.argv.includes("--experiment")

const readJsonl = (file) => Fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))
// HotpotQA dev (the first N questions) over the shared English multi-hop corpus, retrieved with the benchmark's
// in-memory index: real questions and passages, so real prompt lengths.
const hotpot = () => ({
  name: `HotpotQA dev (first ${N}) over the en-multihop corpus`,
  questions: readJsonl(Path.join(DATA, "hotpotqa/dev-300.ircot.jsonl")).slice(0, N).map((q) =>
    new Question({ id: q.question_id, text: q.question_text.trim(), answers: q.answers_objects.flatMap((a) => a.spans) })
  ),
  passages: readJsonl(Path.join(DATA, "corpus/en-multihop.jsonl")).map((p) =>
    new Passage({ id: p.id, title: p.title.trim(), text: p.text.trim(), source: "en-multihop", score: 0 })
  )
})
const synthetic = () => ({ name: `synthetic films workload (${N} questions, run.mjs's)`, ...makeWorkload(N) })

const config = Schema.decodeUnknownSync(RunConfig)({ profile: PROFILE, topK: 3, recallK: 20, maxStep: 3, maxFailure: 2 })
// The layout is a value of the profile's record; the script swaps it to measure both under the same profile.
const original = profiles[PROFILE]
const withLayout = (layout) => {
  layouts["shared-prefix"] = layout === "all-instructions-in-system" ? combined : sharedPrefix
  profiles[PROFILE] = { ...original, promptLayout: layout === "all-instructions-in-system" ? "shared-prefix" : layout }
}
// Not built, measured here only: every role's instructions in the one shared system message (so they are cached
// across questions, as in role-first), then the question and best note (cached across roles, as in shared-prefix),
// then a one-line task naming the role. The script stands it in for the shared-prefix layout's value.
const allInstructions = (language) => {
  const set = instructionsFor(language, PROFILE)
  const tasks = [
    ["plan", set.planJson(config.numQueries)],
    ["init", set.init],
    ["update", set.update],
    ["judge", set.judgeWord],
    ["answer from the note", set.answer[config.task].note],
    ["answer from the passages", set.answer[config.task].passages],
    ["answer", set.answer[config.task].none]
  ]
  const system = [sharedSystem[language], ...tasks.map(([name, text]) => `## Task: ${name}\n${text}`)].join("\n\n")
  return { system, nameOf: new Map(tasks.map(([name, text]) => [text, name])) }
}
const sharedPrefix = layouts["shared-prefix"]
const combined = {
  compose: (language, instructions, question, note, inputs) => {
    const { system, nameOf } = allInstructions(language)
    return messages(
      system,
      section(language, "question", question),
      ...(note === undefined ? [] : [section(language, "bestNote", note.body)]),
      section(language, "task", `Follow the instructions of the task "${nameOf.get(instructions) ?? "?"}".`),
      ...inputs
    )
  }
}
const simArgs = ["--step-base-ms", "1", "--tokens-per-step", "8", "--content", "extractive"]

const started = new Date().toISOString()
const workloads = []
for (const make of [hotpot, synthetic]) {
  const w = make()
  const retriever = retrieverLayer(w.passages)
  const layouts = []
  for (const layout of ["role-first", "shared-prefix", ...(EXPERIMENT ? ["all-instructions-in-system"] : [])]) {
    withLayout(layout)
    const drive = (run) => Effect.forEach(w.questions, run, { concurrency: CONCURRENCY })
    const p = await phase({ label: layout, questions: w.questions, config, retriever, seqs: SEQS, simArgs, drive })
    const { answers, ...rest } = p
    layouts.push({ layout, ...rest, answers })
    console.log(w.name, layout, JSON.stringify({ hitRate: p.prefixCache.hitRate, calls: p.llmCalls, failed: p.failed, correct: p.correct }))
  }
  workloads.push({
    name: w.name,
    questions: w.questions.length,
    sameAnswers: JSON.stringify(layouts[0].answers) === JSON.stringify(layouts[1].answers),
    layouts: layouts.map(({ answers: _a, ...rest }) => rest)
  })
}
profiles[PROFILE] = original
layouts["shared-prefix"] = sharedPrefix

const pct = (x) => `${(100 * x).toFixed(1)}%`
const hit = (r) => (r.promptTokens === 0 ? 0 : r.cachedPromptTokens / r.promptTokens)
const roles = ["init", "plan", "update", "judge", "answer"]
const table = (w) => `### ${w.name}

| layout | LLM calls | prompt tokens | cached | **hit rate** | uncached prompt tokens | ${roles.join(" | ")} | failed questions / parse failures | gold answer found |
|---|---|---|---|---|---|${roles.map(() => "---|").join("")}---|---|
${w.layouts.map((l) => `| ${l.layout} | ${l.llmCalls} | ${l.prefixCache.promptTokens} | ${l.prefixCache.cachedTokens} | **${pct(l.prefixCache.hitRate)}** | ${l.prefixCache.promptTokens - l.prefixCache.cachedTokens} | ${roles.map((r) => (l.byRole[r] ? pct(hit(l.byRole[r])) : "–")).join(" | ")} | ${l.failed} / ${Object.values(l.byRole).reduce((a, r) => a + r.parseFailures, 0)} | ${l.correct}/${w.questions} |`).join("\n")}

Uncached prompt tokens against role-first: ${w.layouts.slice(1).map((l) => `${l.layout} ${pct((l.prefixCache.promptTokens - l.prefixCache.cachedTokens) / (w.layouts[0].prefixCache.promptTokens - w.layouts[0].prefixCache.cachedTokens) - 1)}`).join(", ")}. Same answers under role-first and shared-prefix: ${w.sameAnswers ? "yes" : "no (the simulator's sampling draw is seeded by the prompt text, which the layout changes)"}.
`
const report = {
  started,
  finished: new Date().toISOString(),
  machine: { node: process.version, cpus: Os.cpus().length, loadAverage: Os.loadavg() },
  settings: { profile: PROFILE, questionsInFlight: CONCURRENCY, maxNumSeqs: SEQS, simArgs, blockSize: 16, kvCapacityTokens: 262_144 },
  workloads
}
const md = `# Prefix-cache hit rate per prompt layout — results

Run ${started} · Node ${process.version} · ${Os.cpus().length} CPUs. Profile \`${PROFILE}\` (top-k 3, max step 3, max failure 2),
${CONCURRENCY} questions in flight, the real pipeline (core \`answerQuestion\`, the LLM roles, an in-memory retriever) against
one simulator (max_num_seqs ${SEQS}, prefix caching on: 16-token blocks, KV cache of 262,144 tokens, LRU). Hit rate = cached
prompt tokens / prompt tokens (the simulator's \`vllm:prefix_cache_*\` counters); by role from the client's usage ledger
(\`cached_tokens\` reported per call).

- \`role-first\`: each role's instructions as its system message, then the question, the note(s), the inputs (\`paper\`).
- \`shared-prefix\`: one system message for every role, then the question and the current best note under one
  heading, then the role's instructions (\`### Task\`), then its inputs (every other profile).
${EXPERIMENT ? "- \`all-instructions-in-system\` (not built; \`--experiment\`): every role's instructions in the one shared system message, then the\n  question and best note, then a one-line task naming the role, then its inputs.\n" : ""}
${workloads.map(table).join("\n")}`
const out = EXPERIMENT ? "prefix-layout-experiment" : "prefix-layout"
Fs.writeFileSync(Path.join(here, `${out}.json`), JSON.stringify(report, null, 2) + "\n")
Fs.writeFileSync(Path.join(here, `${out}.md`), md)
console.log(md)
