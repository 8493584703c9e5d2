// Crash-and-resume benchmark (issue "Resumable runs"): a 200-question run against the vLLM-like simulator,
// killed at five random moments (SIGKILL, then separately SIGINT) and resumed each time, compared with an
// uninterrupted run. Counts LLM calls from the simulator.
//
//   npm run build && node benchmarks/resume/crash-resume.mjs [../shared/data] [questions=200] [kills=5]
//
// Writes benchmarks/resume/results.json and results.md.
import { start } from "../../apps/llm-sim/dist/src/index.js"
import { killAndCountInFlight, prng, spawnCli, untilSimRequests } from "../../apps/cli/dist/test/CrashHarness.js"
import { runCli } from "../../apps/cli/dist/test/RunCli.js"
import { Effect, Scope } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const data = process.argv[2] ?? "../shared/data"
const questions = Number(process.argv[3] ?? 200)
const kills = Number(process.argv[4] ?? 5)
const dataset = join(data, "hotpotqa/dev-300.ircot.jsonl")
const run = (effect) => Effect.runPromise(effect)
// asynchronous on purpose: the simulator lives in this process and must keep serving while the CLI runs
const cli = async (args) => {
  const out = await run(runCli(args, {}, 30 * 60_000))
  if (out.code !== 0) throw new Error(`deepnote ${args[0]} exited ${out.code}: ${out.stderr}`)
  return out.stdout
}

const scope = await run(Scope.make())
const sim = await run(start({ stepBaseMs: 6, maxNumSeqs: 64 }).pipe(Scope.extend(scope)))
const home = mkdtempSync(join(tmpdir(), "deepnote-crash-"))
await cli(["index", dataset, "-c", "hotpot", "--home", home])
const common = ["--dataset", dataset, "--limit", String(questions), "-c", "hotpot", "--home", home, "--engine", "llm", "--llm-url", `${sim.url}/v1`, "--no-llm-cache", "--concurrency", "16", "--quiet"]
const runIdOf = (stdout) => /run (r-[0-9a-z-]+)/.exec(stdout)?.[1]
const results = async (runId) =>
  (await cli(["export", runId, "--home", home])).trim().split("\n").map((l) => JSON.parse(l)).map((l) => JSON.stringify([l.itemId, l.status, l.answer, l.result?.bestNote?.text, l.result?.trace]))

let t = Date.now()
const reference = runIdOf(await cli(["run", ...common]))
const referenceMs = Date.now() - t
const referenceCalls = sim.metrics.requests
const expected = await results(reference)

const crashRun = async (signal, seed) => {
  const random = prng(seed)
  const startRequests = sim.metrics.requests
  const begin = Date.now()
  const perKill = []
  let runId
  let before = { requests: sim.metrics.requests, journaled: 0 }
  let child = spawnCli(["run", ...common])
  for (let k = 0; k < kills; k++) {
    const planned = startRequests + Math.floor(((k + 0.3 + 0.5 * random()) / (kills + 1)) * referenceCalls)
    const alive = await run(untilSimRequests(sim, Math.max(planned, sim.metrics.requests + 3), child))
    if (!alive) throw new Error(`the run finished before kill ${k + 1}`)
    const current = child
    const { code, inFlight, journaled } = await run(killAndCountInFlight(sim, child, signal, before, home, () => runId ?? runIdOf(current.stdout())))
    runId ??= runIdOf(child.stdout())
    perKill.push({ atRequest: sim.metrics.requests - startRequests, inFlight, exitCode: code })
    before = { requests: sim.metrics.requests, journaled }
    child = spawnCli(["resume", runId, "--home", home, "--llm-url", `${sim.url}/v1`, "--no-llm-cache", "--concurrency", "16", "--quiet"])
  }
  const exit = await child.exited
  const actual = await results(runId)
  const calls = sim.metrics.requests - startRequests
  return {
    signal,
    runId,
    finalExitCode: exit,
    kills: perKill,
    inFlightAtKills: perKill.reduce((a, k) => a + k.inFlight, 0),
    calls,
    resent: calls - referenceCalls,
    identical: JSON.stringify(actual) === JSON.stringify(expected),
    everyQuestionAnsweredOnce: actual.length === expected.length && new Set(actual.map((l) => JSON.parse(l)[0])).size === actual.length,
    wallMs: Date.now() - begin
  }
}

const sigkill = await crashRun("SIGKILL", 7)
const sigint = await crashRun("SIGINT", 11)
await run(Scope.close(scope, { _tag: "Success", value: undefined }))
rmSync(home, { recursive: true, force: true })

const result = { date: new Date().toISOString(), questions, killsPerRun: kills, reference: { calls: referenceCalls, wallMs: referenceMs }, sigkill, sigint }
writeFileSync(new URL("results.json", import.meta.url), JSON.stringify(result, null, 2) + "\n")
const row = (r) => `| ${r.signal} | ${r.kills.map((k) => k.inFlight).join(", ")} | ${r.inFlightAtKills} | ${r.calls} | ${r.resent} | ${r.identical ? "yes" : "NO"} | ${r.everyQuestionAnsweredOnce ? "yes" : "NO"} | ${(r.wallMs / 1000).toFixed(1)} s |`
writeFileSync(new URL("results.md", import.meta.url), `# Crash and resume (${result.date.slice(0, 10)})

${questions} HotpotQA dev questions, LLM engine against the vLLM-like simulator (max_num_seqs 64), \`--concurrency 16\`,
LLM cache off (the journal alone prevents repeats). Each run is killed ${kills} times at random moments (seeded) and
resumed with \`deepnote resume\` each time. Calls are counted by the simulator. The uninterrupted reference run made
${referenceCalls} calls in ${(referenceMs / 1000).toFixed(1)} s.

| signal | calls in flight at each kill | in flight, total | calls made (all processes) | re-sent | identical results | each question once | wall |
|---|---|---|---|---|---|---|---|
${row(sigkill)}
${row(sigint)}

"Re-sent" = calls made across all processes − calls of the uninterrupted run. "In flight" at a kill = calls the
simulator received from the killed process − calls that process journaled (a response that arrived but was not yet
journaled is lost with the process, so it counts as in flight). Re-sent = in flight means no journaled call was ever
sent again. With SIGINT the CLI stops at call boundaries: calls in flight finish and are journaled, so nothing is
re-sent.

Reproduce: \`npm run build && node benchmarks/resume/crash-resume.mjs ../shared/data ${questions} ${kills}\`
`)
console.log(JSON.stringify(result, null, 2))
if (!sigkill.identical || !sigint.identical || sigkill.resent > sigkill.inFlightAtKills || sigint.resent > sigint.inFlightAtKills) process.exit(1)
