// Whole-process CPU per LLM call of the client alone: judge-sized `LlmClient.chat` calls (structured choice, question
// and run ids, as the judge role sends them) at concurrency 64 against the simulator with ZERO step time in its own
// process, so the client's CPU is the bottleneck and the simulator's is not counted. Each measurement is a fresh child
// process (warm-up calls first, then the measured calls; CPU = user + sys of the child over the measured calls only:
// the client, undici, GC, spans, metrics, the ledger). With `--baseline DIR` another built checkout (e.g. the commit
// before a change) is measured in the same session, rounds interleaved (order alternating), so both see the same load.
//
// Build first:  npx tsc -b apps/llm-sim packages/llm   (and the same in the baseline checkout)
// Run:          node benchmarks/llm/client-cpu.mjs [--baseline DIR --baseline-label before] [--label after]
//                 [--rounds 7] [--calls 4000] [--warmup 2000] [--concurrency 64] [--via chat|judge] [--profile]
// Writes benchmarks/llm/client-cpu-results.json and client-cpu-results.md (labels accumulate; a rerun replaces one).
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { arg, codeCommit, median, root, startSim, stopSim } from "../lib/bench.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))

// == child: one measurement with the checkout at --root ==
// Everything is imported from that checkout's own build and node_modules (one copy of effect per process).
const child = async () => {
  const dir = arg("root")
  const url = arg("url")
  const calls = Number(arg("calls"))
  const warmup = Number(arg("warmup"))
  const concurrency = Number(arg("concurrency"))
  const via = arg("via")
  const load = (p) => import(pathToFileURL(Path.join(dir, p)).href)
  const { Context, Effect, Layer, Logger, LogLevel } = await load("node_modules/effect/dist/esm/index.js")
  const core = await load("packages/core/dist/src/index.js")
  const llm = await load("packages/llm/dist/src/index.js")
  const stack = llm.LlmClient.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(
      llm.UsageLedger.layer,
      llm.LlmCache.layer({ file: undefined }),
      llm.httpClientLayer({ connections: concurrency * 2 })
    )),
    Layer.provideMerge(llm.LlmSettings.layer({
      endpoints: [{ url }],
      cache: false,
      attemptTimeoutMs: 120_000,
      adaptiveConcurrency: false
    })),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )
  const layer = via === "judge" ? llm.LlmJudge.layer.pipe(Layer.provideMerge(stack)) : stack
  const note = "Jaws is a 1975 American thriller film directed by Steven Spielberg. ".repeat(12)
  const config = core.defaultRunConfig
  const sampling = core.samplingFor(config, "judge")
  const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const ctx = yield* Layer.build(layer)
    const client = Context.get(ctx, llm.LlmClient)
    const messages = (i) => [
      {
        role: "system",
        content: "Decide whether Note 2 is a significant improvement over Note 1. Reply with exactly one word: True or False."
      },
      {
        role: "user",
        content: `### Question\nWho directed Jaws? (${i})\n### Note 1 (current best)\n${note}\n### Note 2 (candidate)\n${note} It stars Roy Scheider.`
      }
    ]
    const one = via === "judge"
      ? (() => {
        const judge = Context.get(ctx, core.Judge)
        const context = (i) => ({
          questionId: `q${i}`,
          runId: "bench",
          step: 1,
          language: "en",
          config,
          formats: { judge: "word" }
        })
        return (i) =>
          judge.compare({
            context: context(i),
            question: `Who directed Jaws? (${i})`,
            bestNote: { text: note },
            candidate: { text: `${note} It stars Roy Scheider.` }
          })
      })()
      : (i) =>
        client.chat({
          role: "judge",
          questionId: `q${i}`,
          runId: "bench",
          messages: messages(i),
          sampling,
          structured: { _tag: "Choice", choices: ["True", "False"] }
        })
    const run = (n, from) =>
      Effect.forEach(Array.from({ length: n }, (_, i) => from + i), one, { concurrency, discard: true })
    yield* run(warmup, 0)
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    yield* run(calls, warmup)
    const c = process.cpuUsage(c0)
    const seconds = (performance.now() - t0) / 1000
    return { cpuMsPerCall: (c.user + c.system) / 1000 / calls, callsPerSecond: calls / seconds }
  })))
  process.stdout.write(JSON.stringify(result) + "\n")
}

// == parent: the simulator, the interleaved rounds, the report ==
const runChild = (variant, sim, options) =>
  new Promise((resolve, reject) => {
    const nodeArgs = options.profile ? ["--cpu-prof", "--cpu-prof-dir", options.profileDir] : []
    const p = spawn(process.execPath, [
      ...nodeArgs,
      fileURLToPath(import.meta.url),
      "--child",
      "1",
      "--root",
      variant.root,
      "--url",
      sim.url,
      "--calls",
      String(options.calls),
      "--warmup",
      String(options.warmup),
      "--concurrency",
      String(options.concurrency),
      "--via",
      options.via
    ], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    p.stdout.on("data", (d) => out += d)
    p.on("exit", (code) => code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`child ${code}`)))
  })

const parent = async () => {
  const options = {
    calls: Number(arg("calls", "4000")),
    warmup: Number(arg("warmup", "2000")),
    concurrency: Number(arg("concurrency", "64")),
    via: arg("via", "chat"),
    profile: process.argv.includes("--profile"),
    profileDir: Path.resolve(arg("profile-dir", Path.join(Os.tmpdir(), "deepnote-client-cpu-prof")))
  }
  const rounds = Number(arg("rounds", "7"))
  const baseline = arg("baseline", undefined)
  const variants = [
    ...(baseline === undefined ? [] : [{ label: arg("baseline-label", "before"), root: Path.resolve(baseline) }]),
    { label: arg("label", "after"), root }
  ]
  const started = new Date().toISOString()
  const loadAtStart = Os.loadavg()
  const sim = await startSim([
    "--port",
    "0",
    "--max-num-seqs",
    String(options.concurrency),
    "--step-base-ms",
    "0",
    "--step-per-seq-ms",
    "0",
    "--step-per-prefill-token-ms",
    "0",
    "--tokens-per-step",
    "64",
    "--content",
    "lite"
  ])
  const samples = new Map(variants.map((v) => [v.label, []]))
  try {
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse()
      for (const v of order) {
        const s = await runChild(v, sim, options)
        samples.get(v.label).push(s)
        process.stderr.write(`round ${r + 1} ${v.label}: ${s.cpuMsPerCall.toFixed(3)} ms/call, ${s.callsPerSecond.toFixed(0)} calls/s\n`)
      }
    }
  } finally {
    await stopSim(sim)
  }
  const summary = (xs) => {
    const cpu = xs.map((x) => x.cpuMsPerCall)
    return {
      rounds: cpu,
      medianCpuMsPerCall: median(cpu),
      minCpuMsPerCall: Math.min(...cpu),
      maxCpuMsPerCall: Math.max(...cpu),
      medianCallsPerSecond: median(xs.map((x) => x.callsPerSecond))
    }
  }
  const file = Path.join(here, "client-cpu-results.json")
  const saved = Fs.existsSync(file) ? JSON.parse(Fs.readFileSync(file, "utf8")) : { labels: {} }
  const session = { started, loadAverageAtStart: loadAtStart, loadAverageAtEnd: Os.loadavg(), ...options, rounds }
  delete session.profileDir
  for (const v of variants) {
    saved.labels[v.label] = {
      commit: v.root === root ? codeCommit() : arg("baseline-commit", "baseline"),
      session,
      ...summary(samples.get(v.label))
    }
  }
  saved.node = process.version
  saved.cpus = Os.cpus().length
  Fs.writeFileSync(file, JSON.stringify(saved, null, 2) + "\n")
  const f = (x, d = 3) => Number(x).toFixed(d)
  const rows = Object.entries(saved.labels).map(([label, s]) =>
    `| ${label} | ${s.commit} | ${s.session.via} | ${f(s.medianCpuMsPerCall)} ms | ${f(s.minCpuMsPerCall)}–${
      f(s.maxCpuMsPerCall)
    } | ${f(s.medianCallsPerSecond, 0)} | ${s.rounds.length} × ${s.session.calls} | ${
      s.session.loadAverageAtStart.map((x) => f(x, 1)).join(" / ")
    } | ${s.session.started.slice(0, 16)} |`
  )
  Fs.writeFileSync(
    Path.join(here, "client-cpu-results.md"),
    `# LLM client CPU per call (zero-step simulator) — results

Written by \`client-cpu.mjs\` (Node ${process.version}, ${Os.cpus().length} CPUs). Judge-sized \`LlmClient.chat\` calls
(\`via chat\`) or \`Judge.compare\` through \`LlmJudge\` (\`via judge\`) at concurrency 64; each round a fresh process, warmed
up, then the measured calls; CPU = user + sys of that process per call. Labels measured in one session were interleaved.

| label | commit | via | median CPU per call | range | calls/s (median) | rounds × calls | load at start | session |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
`
  )
  for (const v of variants) {
    const s = saved.labels[v.label]
    console.log(`${v.label}: median ${f(s.medianCpuMsPerCall)} ms/call (${f(s.minCpuMsPerCall)}–${f(s.maxCpuMsPerCall)})`)
  }
}

await (process.argv.includes("--child") ? child() : parent())
