// The LLM client's own CPU per call: judge-sized calls through `LlmClient.chat` against raw `HttpClient` requests with
// the same body over the same pooled undici Agent, against the same simulator (in a child process).
// Build first:  npx tsc -b apps/llm-sim packages/llm
// Run:          node benchmarks/llm/overhead.mjs [--max-num-seqs 64]    (handy under node --cpu-prof)
// Writes benchmarks/llm/overhead-results.json and overhead-results.md.
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { LlmClient } from "@deepnote-rag/llm"
import { Context, Effect, Layer } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { arg, withSim } from "../lib/bench.mjs"
import { clientStack } from "./pipeline.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))
const SEQS = Number(arg("max-num-seqs", "64"))
const cpuMs = (c) => (c.user + c.system) / 1000
/** The middle element of `xs` ordered by `by` (the upper one of an even count). */
const middle = (xs, by = (x) => x) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]

// == phase 0: the client's own CPU per call, against a raw HttpClient request with the same body (same simulator)
const clientOverhead = () =>
  withSim(["--port", "0", "--max-num-seqs", String(SEQS), "--step-base-ms", "1", "--content", "lite"], (sim) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const ctx = yield* Layer.build(clientStack(sim.url, SEQS))
      const client = Context.get(ctx, LlmClient)
      const http = Context.get(ctx, HttpClient.HttpClient)
      const note = "Jaws is a 1975 American thriller film directed by Steven Spielberg. ".repeat(12)
      const messages = (i) => [
        { role: "system", content: "Decide whether Note 2 is a significant improvement over Note 1. Reply with exactly one word: True or False." },
        { role: "user", content: `### Question\nWho directed Jaws? (${i})\n### Note 1 (current best)\n${note}\n### Note 2 (candidate)\n${note} It stars Roy Scheider.` }
      ]
      const sampling = samplingFor(defaultRunConfig, "judge")
      const viaClient = (i) => client.chat({ role: "judge", questionId: `q${i}`, messages: messages(i), sampling })
      const raw = (i) =>
        http.execute(HttpClientRequest.post(`${sim.url}/v1/chat/completions`).pipe(
          HttpClientRequest.setHeaders({ "x-deepnote-role": "judge" }),
          HttpClientRequest.bodyUnsafeJson({ model: "deepnote-sim", messages: messages(i), temperature: 0.1, top_p: 0.9, max_tokens: 1280, seed: 66 })
        )).pipe(Effect.flatMap((r) => r.json), Effect.timeout("120 seconds"))
      const calls = (n) => Array.from({ length: n }, (_, i) => i)
      const measure = (f, n) => Effect.gen(function*() {
        const c0 = process.cpuUsage()
        const t0 = Date.now()
        yield* Effect.forEach(calls(n), f, { concurrency: SEQS })
        return { cpuMsPerCall: cpuMs(process.cpuUsage(c0)) / n, callsPerSecond: n / ((Date.now() - t0) / 1000) }
      })
      // Steady state: both paths warm (JIT, sockets) before anything is measured, then interleaved rounds so that the
      // machine's load and GC timing hit both alike; the median round is reported.
      yield* Effect.forEach(calls(2000), raw, { concurrency: SEQS })
      yield* Effect.forEach(calls(2000), viaClient, { concurrency: SEQS })
      const rounds = []
      for (let r = 0; r < 5; r++) rounds.push({ raw: yield* measure(raw, 3000), client: yield* measure(viaClient, 3000) })
      const rawRun = middle(rounds.map((r) => r.raw), (run) => run.cpuMsPerCall)
      const clientRun = middle(rounds.map((r) => r.client), (run) => run.cpuMsPerCall)
      return {
        calls: 3000,
        rounds: rounds.map((r) => ({ rawCpuMsPerCall: r.raw.cpuMsPerCall, llmClientCpuMsPerCall: r.client.cpuMsPerCall })),
        rawHttpClient: rawRun,
        llmClient: clientRun,
        overheadMsPerCall: clientRun.cpuMsPerCall - rawRun.cpuMsPerCall
      }
    })))
  )


const started = new Date().toISOString()
const load = Os.loadavg()
const r = await clientOverhead()
const f = (x, d = 3) => Number(x).toFixed(d)
const report = { started, machine: { node: process.version, cpus: Os.cpus().length, loadAverageAtStart: load, loadAverageAtEnd: Os.loadavg() }, ...r }
Fs.writeFileSync(Path.join(here, "overhead-results.json"), JSON.stringify(report, null, 2) + "\n")
Fs.writeFileSync(Path.join(here, "overhead-results.md"), `# LLM client CPU per call — results

Run ${started} · Node ${process.version} · ${Os.cpus().length} CPUs · load average ${load.map((x) => f(x, 1)).join(" / ")} at start.
Judge-sized calls at concurrency ${SEQS} against the simulator (1 ms steps, lite content) in a child process; both paths
warmed with 2000 calls, then ${r.rounds.length} interleaved rounds of ${r.calls} calls each; the median round is shown.

| | CPU per call | calls/s |
|---|---|---|
| raw \`HttpClient\` request with \`Effect.timeout\` (same body, same pooled undici Agent) | ${f(r.rawHttpClient.cpuMsPerCall)} ms | ${f(r.rawHttpClient.callsPerSecond, 0)} |
| \`LlmClient.chat\` (routing, limits, retries, spans, schema decode, ledger) | ${f(r.llmClient.cpuMsPerCall)} ms | ${f(r.llmClient.callsPerSecond, 0)} |
| difference (\`LlmClient.chat\` − raw request) | ${f(r.overheadMsPerCall)} ms | |

\`LlmClient.chat\` / raw request, per round: ${r.rounds.map((x) => f(x.llmClientCpuMsPerCall / x.rawCpuMsPerCall, 2)).join(" · ")} (median ${f(middle(r.rounds.map((x) => x.llmClientCpuMsPerCall / x.rawCpuMsPerCall)), 2)}×).

A non-streamed attempt of the client goes straight to the pooled undici \`Agent\` (\`packages/llm/src/Client/Transport.ts\`)
instead of through the platform \`HttpClient\`'s request and response objects, so the whole client — routing, limits,
retries, spans, decoding, the usage ledger — can cost less than one bare platform request.

Rounds (raw / LlmClient, ms CPU per call): ${r.rounds.map((x) => `${f(x.rawCpuMsPerCall)} / ${f(x.llmClientCpuMsPerCall)}`).join(" · ")}
`)
console.log(JSON.stringify(report, null, 2))
