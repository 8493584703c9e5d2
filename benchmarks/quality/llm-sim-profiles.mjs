// Every profile with the LLM engine (the real @deepnote-rag/llm roles and prompts) against the simulator (apps/llm-sim,
// extractive content), on the first N HotpotQA dev questions: LLM calls, prompt and generated tokens per question.
// The simulator is not a model, so only the cost columns mean something; answers are shown for completeness.
// Run from the repo root:
//   npx tsc -b apps/llm-sim packages/llm packages/retrieval packages/eval packages/core
//   node benchmarks/quality/llm-sim-profiles.mjs [--limit 50] [--out DIR]
// Writes llm-sim-profiles.json and llm-sim-profiles.md next to this script (or into --out DIR).
import { answerQuestion, defaultRunConfig, Home, Profile } from "@deepnote-rag/core"
import { loadDataset, squadF1 } from "@deepnote-rag/eval"
import { LlmEngine, LlmSettings } from "@deepnote-rag/llm"
import { start } from "@deepnote-rag/llm-sim"
import { Collections, FtsRetriever } from "@deepnote-rag/retrieval"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { r2 } from "../lib/scores.mjs"

const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data/hotpotqa/dev-300.ircot.jsonl" },
    limit: { type: "string", default: "50" },
    out: { type: "string", default: Path.dirname(new URL(import.meta.url).pathname) },
    profiles: { type: "string", default: Profile.literals.join(",") }
  }
})
const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "deepnote-llm-profiles-bench-"))
const collection = "hotpot"
const base = Layer.mergeAll(FtsRetriever.layer({ collection }), NodeFileSystem.layer).pipe(
  Layer.provideMerge(Collections.layer.pipe(Layer.provide(Home.layer(home))))
)
const setup = ManagedRuntime.make(base)
await setup.runPromise(Effect.flatMap(Collections, (c) => c.index(collection, [args.data], { format: "ircot" })))
const { questions } = await setup.runPromise(loadDataset(args.data, { format: "ircot", limit: Number(args.limit) }))
await setup.dispose()

const rows = []
for (const profile of args.profiles.split(",")) {
  // A fresh simulator per profile, so its token counters are that profile's alone.
  const row = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sim = yield* start({ stepBaseMs: 0, tokensPerStep: 64 })
    const layer = LlmEngine.layer.pipe(
      Layer.provide(LlmSettings.layer({ endpoints: [{ url: sim.url }], cache: false })),
      Layer.merge(base)
    )
    const config = { ...defaultRunConfig, profile, engine: "llm" }
    const results = yield* Effect.forEach(questions, (q) => answerQuestion(q, config), { concurrency: 8 }).pipe(
      Effect.provide(layer)
    )
    const n = results.length
    const sum = (f) => results.reduce((a, r) => a + f(r), 0)
    return {
      profile,
      questions: n,
      f1: r2(100 * sum((r) => squadF1(r.answer.text, questions.find((q) => q.id === r.questionId).answers ?? [])) / n),
      llmCallsPerQuestion: r2(sum((r) => r.counters.llm.total) / n),
      serverRequestsPerQuestion: r2(sim.metrics.requests / n),
      promptTokensPerQuestion: Math.round(sim.metrics.promptTokens / n),
      generatedTokensPerQuestion: Math.round(sim.metrics.generationTokens / n),
      retrievalsPerQuestion: r2(sum((r) => r.counters.retrievals) / n),
      steps: r2(sum((r) => r.counters.steps) / n),
      ...(results[0]?.counters.subqueries === undefined ? {} : {
        subqueriesRetrieved: r2(sum((r) => r.counters.subqueries.retrieved) / n),
        subqueriesParametric: r2(sum((r) => r.counters.subqueries.parametric) / n)
      })
    }
  })))
  rows.push(row)
  console.error(JSON.stringify(row))
}
Fs.rmSync(home, { recursive: true, force: true })

let commit = "unknown"
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()
} catch {}
Fs.writeFileSync(
  Path.join(args.out, "llm-sim-profiles.json"),
  JSON.stringify({ benchmark: "llm-sim-profiles", data: Path.basename(args.data), commit, rows }, null, 2) + "\n"
)
const lines = [
  `# Every profile with the LLM engine against the simulator (${questions.length} HotpotQA dev questions)`,
  "",
  "The real LLM roles and prompts (EN) over the simulator's extractive content; defaults for every knob. Tokens are the simulator's counts (its tokenizer approximates a model's). Only the cost columns are meaningful: the simulator is not a model.",
  "",
  "| profile | LLM calls/q | server requests/q | prompt tokens/q | generated tokens/q | retrievals/q | steps | F1 (not meaningful) |",
  "|---|---|---|---|---|---|---|---|",
  ...rows.map((r) =>
    `| ${r.profile} | ${r.llmCallsPerQuestion} | ${r.serverRequestsPerQuestion} | ${r.promptTokensPerQuestion} | ${r.generatedTokensPerQuestion} | ${r.retrievalsPerQuestion}${
      r.subqueriesRetrieved === undefined ? "" : ` (subqueries ${r.subqueriesRetrieved} retrieved, ${r.subqueriesParametric} parametric)`
    } | ${r.steps} | ${r.f1} |`
  ),
  "",
  `Code ${commit}.`,
  ""
]
Fs.writeFileSync(Path.join(args.out, "llm-sim-profiles.md"), lines.join("\n"))
console.log(lines.join("\n"))
