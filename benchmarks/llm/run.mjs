// Pool vs the reference's waves, at several wave sizes, against the vLLM-like simulator (in a child process).
// Build first:  npx tsc -b apps/llm-sim packages/llm
// Run:          node benchmarks/llm/run.mjs [--questions 288] [--wave-sizes 32,72,144] [--repeats 3]
//                 [--max-num-seqs 64] [--step-base-ms 20] [--tokens-per-step 8]
//                 [--reply-extra init=200,update=250,plan=30,judge=0,answer=10] [--content extractive|lite]
// Writes benchmarks/llm/results.json and results.md. (The LLM client's own CPU per call: overhead.mjs.)
import { RunConfig } from "@deepnote-rag/core"
import { Effect, Schema } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { arg, median, spread } from "../lib/bench.mjs"
import { phase } from "./pipeline.mjs"
import { renderMarkdown } from "./report.mjs"
import { makeWorkload, retrieverLayer } from "./workload.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))
const N = Number(arg("questions", "288"))
const WAVE_SIZES = arg("wave-sizes", "32,72,144").split(",").map(Number)
const REPEATS = Number(arg("repeats", "3"))
const SEQS = Number(arg("max-num-seqs", "64"))
const CONTENT = arg("content", "extractive")
const STEP_MS = arg("step-base-ms", "20")
const TOKENS_PER_STEP = arg("tokens-per-step", "8")
// Extra tokens a model generates beyond the extractive engine's short replies, by role (exponential means): notes run
// to a few hundred tokens, a planner writes a couple of queries, a verdict is one word, an answer a short span.
const REPLY_EXTRA = arg("reply-extra", "init=200,update=250,plan=30,judge=0,answer=10")

const config = Schema.decodeUnknownSync(RunConfig)({ topK: 3, recallK: 20, maxStep: 3, maxFailure: 2 })
const { questions, passages } = makeWorkload(N)
const retriever = retrieverLayer(passages)
// Reply lengths are drawn per call from a hash of the seed and the prompt (`--reasoning-draw prompt`): a question's
// calls get the same lengths under every strategy, whatever order they reach the server in.
const simArgs = [
  "--step-base-ms", STEP_MS, "--tokens-per-step", TOKENS_PER_STEP, "--content", CONTENT,
  "--reasoning-mean-tokens-by-role", REPLY_EXTRA, "--reasoning-draw", "prompt"
]

// Independent fibers: every question at once; the endpoint pool keeps the server's batch full.
const pooled = (run) => Effect.forEach(questions, run, { concurrency: "unbounded" })
// The reference's way (`ThreadPool(MaxClients)` per batch): waves of `size` questions, each waiting for its slowest.
const waves = (size) => (run) => Effect.gen(function*() {
  const out = []
  for (let i = 0; i < questions.length; i += size) out.push(...(yield* Effect.forEach(questions.slice(i, i + size), run, { concurrency: size })))
  return out
})
const strategies = [{ name: "pool", drive: pooled }, ...WAVE_SIZES.map((n) => ({ name: `waves of ${n}`, waveSize: n, drive: waves(n) }))]

const brief = (p) => {
  const { answers: _answers, ...rest } = p
  return rest
}
const started = new Date().toISOString()
const loadAtStart = Os.loadavg()
const repeats = []
for (let r = 0; r < REPEATS; r++) {
  const runs = []
  // the order rotates between repeats, so that no strategy always runs first or last
  const order = strategies.map((_, i) => strategies[(i + r) % strategies.length])
  for (const s of order) {
    const load = Os.loadavg()[0]
    const p = await phase({ label: s.name, questions, config, retriever, seqs: SEQS, simArgs, drive: s.drive })
    runs.push({ strategy: s.name, waveSize: s.waveSize, loadAverage: load, ...p })
    console.log(`repeat ${r}`, s.name, JSON.stringify({ ...brief(p), byRole: undefined }))
  }
  const pool = runs.find((x) => x.strategy === "pool")
  const sameAnswers = runs.every((x) => JSON.stringify(x.answers) === JSON.stringify(pool.answers))
  repeats.push({
    repeat: r,
    order: order.map((s) => s.name),
    sameAnswers,
    runs: runs.map(brief),
    // ratios within one repeat: the same machine conditions for the pool and each wave size
    ratios: Object.fromEntries(runs.filter((x) => x.strategy !== "pool").map((x) => [x.strategy, {
      wall: pool.callsPerSecond / x.callsPerSecond,
      simGpu: pool.callsPerSimBusySecond / x.callsPerSimBusySecond
    }]))
  })
}

const summary = strategies.map((s) => {
  const runs = repeats.map((r) => r.runs.find((x) => x.strategy === s.name))
  return {
    strategy: s.name,
    waveSize: s.waveSize,
    callsPerSecond: spread(runs.map((x) => x.callsPerSecond)),
    callsPerSimBusySecond: spread(runs.map((x) => x.callsPerSimBusySecond)),
    occupancyWhileWorkRemains: spread(runs.map((x) => x.occupancyWhileWorkRemains)),
    occupancyWholeRun: spread(runs.map((x) => x.occupancyWholeRun)),
    generationTokens: spread(runs.map((x) => x.generationTokens)),
    llmCalls: spread(runs.map((x) => x.llmCalls)),
    clientCpuMsPerCall: spread(runs.map((x) => x.clientCpuMsPerCall)),
    ...(s.name === "pool" ? {} : {
      ratioWall: spread(repeats.map((r) => r.ratios[s.name].wall)),
      ratioSimGpu: spread(repeats.map((r) => r.ratios[s.name].simGpu))
    })
  }
})
const report = {
  started,
  finished: new Date().toISOString(),
  machine: { node: process.version, cpus: Os.cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: Os.loadavg() },
  workload: {
    questions: N, maxNumSeqs: SEQS, content: CONTENT, stepBaseMs: Number(STEP_MS), tokensPerStep: Number(TOKENS_PER_STEP),
    replyExtraByRole: REPLY_EXTRA, reasoningDraw: "prompt", profile: config.profile, topK: 3, maxStep: 3, maxFailure: 2,
    waveSizes: WAVE_SIZES, repeats: REPEATS
  },
  summary,
  repeats
}
Fs.writeFileSync(Path.join(here, "results.json"), JSON.stringify(report, null, 2) + "\n")
Fs.writeFileSync(Path.join(here, "results.md"), renderMarkdown(report))
console.log(renderMarkdown(report))
