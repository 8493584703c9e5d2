// DNAlign preference data (issue 17): `deepnote align-data` on 2WikiMQA dev-84 with the paper's recipe (9 samples over
// temperature × top_p ∈ {0.1, 0.5, 0.9}², top-k 3..9, all four roles), against the vLLM-like simulator (LLM engine,
// started here on 127.0.0.1 on a free port, stopped at the end) and with the extractive engine. Measures pairs per role,
// dropped questions, LLM calls and tokens per pair, time per question; then kills a second run with SIGKILL halfway,
// resumes it with `deepnote resume`, and checks that its pairs file equals the uninterrupted run's, byte for byte, and
// that no journaled call was sent again.
//
//   npx tsc -b && node benchmarks/align/run.mjs [--data ../shared/data] [--concurrency 16]
//
// Writes benchmarks/align/results.json and results.md.
import { Effect, Scope } from "effect"
import { execFile, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { start } from "../../apps/llm-sim/dist/src/index.js"
import { Journal, Store } from "../../packages/store/dist/src/index.js"
import { arg, cliMain, root, tempDir } from "../lib/bench.mjs"

const data = arg("data", "../shared/data")
const concurrency = arg("concurrency", "16")
const dataset = Path.join(data, "2wikimultihopqa/dev-84.2wiki.jsonl")
const run = (effect) => Effect.runPromise(effect)
// asynchronous on purpose: the simulator lives in this process and must keep serving while the CLI runs
const cli = (args) =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [cliMain, ...args], { cwd: root, maxBuffer: 256 << 20 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`deepnote ${args.join(" ")} failed: ${stderr}`))
    )
  )
/** A `deepnote` child process whose stdout is collected. */
const spawnCli = (args) => {
  const child = spawn(process.execPath, [cliMain, ...args], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
  let stdout = ""
  child.stdout.on("data", (chunk) => (stdout += chunk))
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)))
  return { process: child, stdout: () => stdout, exited }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
/** Calls journaled so far for a run: all of them, and the LLM calls (read from the store file). */
const journaled = (runId) =>
  run(Effect.gen(function*() {
    const totals = yield* (yield* Journal).totals(runId)
    return { calls: totals.reduce((n, t) => n + t.calls, 0), llm: totals.reduce((n, t) => n + t.llmCalls, 0) }
  }).pipe(Effect.provide(Store.layer({ url: `sqlite:${Path.join(home, "deepnote.sqlite")}` }))))
const runIdOf = (stdout) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1]
const callsOf = (stdout) => Number(/this execution: (\d+) calls made/.exec(stdout)?.[1] ?? NaN)

const home = tempDir("deepnote-align-bench-")
const out = (name) => Path.join(home, name)
await cli(["index", dataset, "-c", "twowiki", "--home", home])
const questions = Fs.readFileSync(dataset, "utf8").trim().split("\n").length

/** Pairs of a file by role, each line checked: TRL's keys, one assistant turn each side, chosen ≠ rejected. */
const pairsIn = (file) => {
  const byRole = { init: 0, plan: 0, update: 0, answer: 0 }
  for (const line of Fs.readFileSync(file, "utf8").trim().split("\n").filter((l) => l.length > 0)) {
    const p = JSON.parse(line)
    if (p.prompt.at(-1).role !== "user" || p.chosen[0].content === p.rejected[0].content) throw new Error(`bad pair ${line}`)
    byRole[p.role] += 1
  }
  return byRole
}

/** One uninterrupted run: its pairs, its per-role tally (status --json), calls, tokens and time. */
const measure = async (engine, args, sim) => {
  const before = { requests: sim?.metrics.requests ?? 0 }
  const promptBefore = sim?.metrics.promptTokens ?? 0
  const generatedBefore = sim?.metrics.generationTokens ?? 0
  const t = Date.now()
  const stdout = await cli(["align-data", ...args, "-o", out(`${engine}.jsonl`)])
  const wallMs = Date.now() - t
  const runId = runIdOf(stdout)
  const status = JSON.parse(await cli(["status", runId, "--home", home, "--json"]))
  const pairs = pairsIn(out(`${engine}.jsonl`))
  const total = Object.values(pairs).reduce((a, b) => a + b, 0)
  const llmCalls = sim === undefined ? undefined : sim.metrics.requests - before.requests
  const tokens = sim === undefined ? undefined : {
    prompt: sim.metrics.promptTokens - promptBefore,
    generated: sim.metrics.generationTokens - generatedBefore
  }
  return {
    engine,
    runId,
    questions,
    wallMs,
    secondsPerQuestion: wallMs / 1000 / questions,
    calls: callsOf(stdout),
    llmCalls,
    tokens,
    pairs,
    totalPairs: total,
    llmCallsPerPair: llmCalls === undefined ? undefined : llmCalls / total,
    tokensPerPair: tokens === undefined ? undefined : (tokens.prompt + tokens.generated) / total,
    roles: status.alignSummary.roles
  }
}

/**
 * The same run killed (SIGKILL) once `killAt` says so, resumed with `deepnote resume`: the resumed pairs file must
 * equal the uninterrupted one; the calls sent twice are at most those in flight at the kill (LLM: counted at the
 * simulator; extractive: executed after the resume = reference calls − calls journaled before the kill).
 */
const crashAndResume = async (engine, args, reference, sim) => {
  const file = out(`${engine}-resumed.jsonl`)
  const requestsBefore = sim?.metrics.requests ?? 0
  const t = Date.now()
  const child = spawnCli(["align-data", ...args, "-o", file])
  // kill once half the reference's calls are made (LLM: counted at the simulator; extractive: journaled)
  while (true) {
    await sleep(sim === undefined ? 100 : 20)
    if (child.process.exitCode !== null) throw new Error("the run finished before the kill")
    const id = runIdOf(child.stdout())
    if (sim !== undefined ? sim.metrics.requests - requestsBefore >= reference.llmCalls / 2 :
      id !== undefined && (await journaled(id)).calls >= reference.calls / 2) break
  }
  child.process.kill("SIGKILL")
  await child.exited
  const runId = runIdOf(child.stdout())
  const atKill = await journaled(runId)
  // in flight at the kill: calls the simulator received from the killed process that it had not journaled
  const inFlight = sim === undefined ? undefined : sim.metrics.requests - requestsBefore - atKill.llm
  const llmUrl = sim === undefined ? [] : ["--llm-url", `${sim.url}/v1`, "--no-llm-cache"]
  const resumed = await cli(["resume", runId, "--home", home, "--quiet", ...llmUrl])
  const identical = Fs.readFileSync(file, "utf8") === Fs.readFileSync(out(`${engine}.jsonl`), "utf8")
  const resent = sim === undefined
    ? atKill.calls + callsOf(resumed) - reference.calls
    : sim.metrics.requests - requestsBefore - reference.llmCalls
  return {
    engine,
    runId,
    journaledAtKill: atKill.calls,
    inFlightAtKill: inFlight,
    resumedCalls: callsOf(resumed),
    resent,
    identical,
    wallMs: Date.now() - t
  }
}

const common = ["--dataset", dataset, "-c", "twowiki", "--home", home, "--concurrency", concurrency, "--quiet"]
const extractiveArgs = [...common, "--engine", "extractive"]
const extractive = await measure("extractive", extractiveArgs)
const extractiveCrash = await crashAndResume("extractive", extractiveArgs, extractive)

const scope = await run(Scope.make())
const sim = await run(start({ maxNumSeqs: 64 }).pipe(Scope.extend(scope)))
const llmArgs = [...common, "--engine", "llm", "--llm-url", `${sim.url}/v1`, "--no-llm-cache"]
const llm = await measure("llm", llmArgs, sim)
const llmCrash = await crashAndResume("llm", llmArgs, llm, sim)
await run(Scope.close(scope, { _tag: "Success", value: undefined }))
Fs.rmSync(home, { recursive: true, force: true })

const result = { date: new Date().toISOString(), dataset: "2wikimultihopqa/dev-84", concurrency: Number(concurrency), runs: [llm, extractive], crashes: [llmCrash, extractiveCrash] }
const here = Path.dirname(new URL(import.meta.url).pathname)
Fs.writeFileSync(Path.join(here, "results.json"), JSON.stringify(result, null, 2) + "\n")

const f1 = (x) => (x === undefined ? "—" : x.toFixed(1))
const dropped = (r) => Object.entries(r.dropped).map(([k, n]) => `${n} ${k}`).join(", ") || "0"
const agreement = (r) => {
  const decisive = r.agreement.agree + r.agreement.disagree
  return decisive === 0 ? "—" : `${Math.round((100 * r.agreement.agree) / decisive)}% of ${decisive}`
}
const roleRows = (m) =>
  m.roles.map((r) => `| ${m.engine} | ${r.role} | ${r.pairs} | ${r.questions - r.pairs} (${dropped(r)}) | ${(r.distinct / Math.max(1, r.questions)).toFixed(1)} | ${agreement(r)} |`).join("\n")
const costRow = (m) =>
  `| ${m.engine} | ${m.totalPairs} | ${m.calls} | ${m.llmCalls ?? "—"} | ${f1(m.llmCallsPerPair)} | ${m.tokensPerPair === undefined ? "—" : Math.round(m.tokensPerPair).toLocaleString("en")} | ${m.secondsPerQuestion.toFixed(2)} s | ${(m.wallMs / 1000).toFixed(1)} s |`
const crashRow = (c) =>
  `| ${c.engine} | ${c.journaledAtKill} | ${c.inFlightAtKill ?? "—"} | ${c.resent} | ${c.resumedCalls} | ${c.identical ? "yes" : "NO"} |`
Fs.writeFileSync(Path.join(here, "results.md"), `# DNAlign preference data (${result.date.slice(0, 10)})

\`deepnote align-data\` on the 84 questions of 2WikiMQA dev-84 (the paper samples 2Wiki train), the paper's recipe:
9 samples per group over temperature × top_p ∈ {0.1, 0.5, 0.9}², top-k drawn per question from 3..9, all four roles
(init, plan, update, answer), \`--concurrency ${concurrency}\`, the collection built from the file's own paragraphs
(840 passages). LLM engine: the vLLM-like simulator (extractive content, replies varied by temperature and seed;
max_num_seqs 64) as model and judge, LLM cache off. Extractive engine: its options varied by grid point, rule-based
judges. The simulator is not a model: the pair counts say what the recipe keeps and drops, the cost columns what it
asks of a server; the judge agreement column is about the simulator's and the rules' judging, not GPT-4o-mini's.

## Pairs per role

| engine | role | pairs | dropped (reasons) | distinct samples / question | judge agrees with the metric |
|---|---|---|---|---|---|
${roleRows(llm)}
${roleRows(extractive)}

## Cost

| engine | pairs | calls (all, with retrievals) | LLM calls | LLM calls / pair | tokens / pair (prompt + generated) | time / question | wall |
|---|---|---|---|---|---|---|---|
${costRow(llm)}
${costRow(extractive)}

Per question the recipe makes 2 retrievals and up to 9 (init) + 1 (group judge) + 9 (plan) + 1 (group judge) + 9
(update) + 9 (ARD labels, one per distinct update) + 9 (answer) = 47 role calls; identical samples are judged once.

## Crash and resume

A second run of the same command killed with SIGKILL once half the reference's calls were made, then \`deepnote resume\`.

| engine | calls journaled at the kill | LLM calls in flight at the kill | calls made twice | calls made by the resume | pairs file identical |
|---|---|---|---|---|---|
${crashRow(llmCrash)}
${crashRow(extractiveCrash)}

"Calls made twice": LLM, the simulator's requests from the killed run and its resume − the uninterrupted run's; extractive,
calls journaled before the kill + calls the resume made − the uninterrupted run's. Only calls in flight at the kill
(made, not yet journaled) may be made again; every journaled one is replayed.

Reproduce: \`npx tsc -b && node benchmarks/align/run.mjs --data ../shared/data\`
`)
console.log(JSON.stringify(result, null, 2))
if (!llmCrash.identical || !extractiveCrash.identical || llmCrash.resent > llmCrash.inFlightAtKill) process.exit(1)
