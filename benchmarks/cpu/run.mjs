// Whole-process CPU per LLM call of `deepnote run --engine llm`, and store bytes per question (issue 21, items 1 and 5).
//
//   npx tsc -b && node benchmarks/cpu/run.mjs --label after [--questions 200] [--repeat 3] [--profile]
//
// The simulator runs in its own process with zero step time, so the run is client-bound and its CPU is not counted.
// Each repetition copies a home where the HotpotQA dev collection was indexed once (by that variant's build), runs the built CLI under
// `/usr/bin/time` (user + sys of the run process), and reads the LLM calls from the simulator's `sim:requests_total`.
// The CPU of start-up (`deepnote run --help`: the command line loaded, median of 3) is subtracted for the marginal figure. Results go to
// benchmarks/cpu/results.json under the label (earlier labels are kept) and benchmarks/cpu/results.md is rewritten.
// `--node-args "--flag …"` (and `--baseline-node-args`) run a variant's processes with those Node flags: with
// `--baseline .` the same checkout is compared with and without them (e.g. `--max-semi-space-size=64`).
// `--node PATH` (and `--baseline-node PATH`) run a variant's processes with another Node binary: with `--baseline` a
// checkout built by that Node (better-sqlite3 is compiled per Node version), the same code on two Node versions.
// The floor (`--no-floor`: off): the requests of one untimed run, captured by the simulator's proxy, are sent again
// in each repetition by `bare-client.mjs` (undici, nothing else) under /usr/bin/time; its CPU per call is the same-run
// reference for the machine's speed, and each run's whole-process CPU per call is also given as a multiple of it.
import { execFileSync, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { arg, cliMain, median, root, startSim, stopSim, tempDir } from "../lib/bench.mjs"
import { Effect } from "effect"
import { captureProxy } from "../../apps/llm-sim/dist/src/index.js"
import { summarizeProfile } from "./profile.mjs"
import { writeReport } from "./report.mjs"

const label = arg("label", "after")
const questions = Number(arg("questions", "200"))
const repeat = Number(arg("repeat", "3"))
// `--slope-from N` (0: off): each repetition also runs N questions, and the CPU of the calls between the two runs,
// divided by their number, is the cost of one more call once the process is warm (start-up, JIT compilation of the hot
// code and the first reads of the index excluded)
const slopeFrom = Number(arg("slope-from", "0"))
if (!(slopeFrom >= 0 && slopeFrom < questions)) throw new Error("--slope-from must be 0 (off) or fewer than --questions")
const concurrency = arg("concurrency", "64")
const data = arg("data", Path.join(root, "../shared/data"))
const dataset = Path.join(data, "hotpotqa/dev-300.ircot.jsonl")
const here = Path.join(root, "benchmarks/cpu")
// `--baseline DIR`: another built checkout (e.g. the commit before a change) measured in the same session, its runs
// interleaved with this checkout's, so both see the same machine load; recorded as `--baseline-label` (default before)
const baseline = arg("baseline", undefined)
const nodeArgsOf = (name) => arg(name, "").split(" ").filter((flag) => flag !== "")
const variants = [
  ...(baseline === undefined ? [] : [{
    label: arg("baseline-label", "before"),
    cli: Path.join(Path.resolve(baseline), "apps/cli/bin/deepnote.mjs"),
    // profiles run the unbundled build, so that samples name their package and file
    profileCli: Path.join(Path.resolve(baseline), "apps/cli/dist/src/main.js"),
    commit: arg("baseline-commit", "baseline"),
    node: arg("baseline-node", process.execPath),
    nodeArgs: nodeArgsOf("baseline-node-args")
  }]),
  {
    label,
    cli: cliMain,
    profileCli: Path.join(root, "apps/cli/dist/src/main.js"),
    commit: arg("commit", undefined),
    node: arg("node", process.execPath),
    nodeArgs: nodeArgsOf("node-args")
  }
]
/** The Node version a binary reports (`v24.18.1`). */
const versionOf = (node) => execFileSync(node, ["--version"]).toString().trim()
const resultsFile = Path.join(here, "results.json")
const withFloor = !process.argv.includes("--no-floor")
const bareClient = { node: process.execPath, cli: Path.join(here, "bare-client.mjs") }

/** Runs `node args…` (a variant's Node binary) under /usr/bin/time; resolves its wall, user, sys seconds, peak RSS and stdout. */
const timed = (variant, nodeArgs, args, cli) =>
  new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "TIME %e %U %S %M", variant.node, ...nodeArgs, cli, ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c) => (stdout += c))
    child.stderr.on("data", (c) => (stderr += c))
    child.on("exit", (code) => {
      const m = /TIME (\S+) (\S+) (\S+) (\S+)/u.exec(stderr)
      if (code !== 0 || m === null) return reject(new Error(`deepnote ${args[0]} exited ${code}: ${stderr}`))
      resolve({ wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), rssMb: Number(m[4]) / 1024, stdout })
    })
  })

const simRequests = async (sim) => {
  const text = await (await fetch(`${sim.url}/metrics`)).text()
  return Number(/^sim:requests_total(?:\{[^}]*\})? (\S+)/mu.exec(text)[1])
}


/** Bytes per table of a store (SQLite's dbstat), when this SQLite has it. */
const tableBytes = (file) => {
  try {
    const out = execFileSync(process.execPath, [
      "-e",
      `const D=require(${JSON.stringify(Path.join(root, "node_modules/better-sqlite3"))});const d=new D(${
        JSON.stringify(file)
      },{readonly:true});console.log(JSON.stringify(d.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").all()))`
    ])
    return Object.fromEntries(JSON.parse(out).filter((r) => r.bytes > 64 * 1024).map((r) => [r.name, r.bytes]))
  } catch {
    return undefined
  }
}

const base = tempDir("deepnote-cpu-")
const sim = await startSim([
  "--port", "0", "--max-num-seqs", "64", "--step-base-ms", "0", "--step-per-seq-ms", "0",
  "--step-per-prefill-token-ms", "0", "--tokens-per-step", "64"
])
try {
  // each variant indexes its own seed home: a build refuses a collection file of a newer schema than it knows
  const seedOf = new Map()
  for (const variant of variants) {
    const seed = Path.join(base, `seed-${variant.label}`)
    execFileSync(variant.node, [...variant.nodeArgs, variant.cli, "index", dataset, "-c", "hotpot", "--home", seed], {
      stdio: "ignore"
    })
    seedOf.set(variant.label, seed)
  }
  // start-up: the whole command line loaded and a sub-command's help printed (`--version` is answered without it)
  const startupOf = new Map()
  for (const variant of variants) {
    const startup = []
    for (let i = 0; i < 3; i++) startup.push((await timed(variant, variant.nodeArgs, ["run", "--help"], variant.cli)).cpu)
    startupOf.set(variant.label, median(startup))
  }
  const runArgs = (home, limit, llmUrl = sim.url) => [
    "run", "--dataset", dataset, "--limit", String(limit), "-c", "hotpot", "--home", home, "--engine", "llm",
    "--llm-url", `${llmUrl}/v1`, "--no-llm-cache", "--concurrency", concurrency, "--quiet"
  ]
  /** One run of `limit` questions in a fresh copy of the seed home: its CPU, wall, RSS, LLM calls and store size. */
  const measure = async (variant, limit, name, inspect = () => undefined) => {
    const home = Path.join(base, name)
    Fs.cpSync(seedOf.get(variant.label), home, { recursive: true })
    try {
      const before = await simRequests(sim)
      const t = await timed(variant, variant.nodeArgs, runArgs(home, limit), variant.cli)
      const calls = (await simRequests(sim)) - before
      const store = Path.join(home, "deepnote.sqlite")
      const storeBytes = ["", "-wal"].reduce(
        (sum, s) => sum + (Fs.existsSync(store + s) ? Fs.statSync(store + s).size : 0),
        0
      )
      return { ...t, calls, storeBytes, tables: inspect(store) }
    } finally {
      Fs.rmSync(home, { recursive: true, force: true })
    }
  }
  // the floor's requests: one untimed run of this checkout through the simulator's capturing proxy (in this process)
  const requestsFile = Path.join(base, "requests.jsonl")
  if (withFloor) {
    const current = variants.at(-1)
    const home = Path.join(base, "home-capture")
    Fs.cpSync(seedOf.get(current.label), home, { recursive: true })
    const requests = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const proxy = yield* captureProxy(sim.url)
      yield* Effect.promise(() => timed(current, current.nodeArgs, runArgs(home, questions, proxy.url), current.cli))
      return proxy.completions()
    })))
    Fs.rmSync(home, { recursive: true, force: true })
    Fs.writeFileSync(requestsFile, requests.map((r) => JSON.stringify({ path: r.path, body: JSON.stringify(r.body) })).join("\n") + "\n")
  }
  /** The bare client sends the captured requests again: its CPU ms per call. */
  const floor = async () => {
    const before = await simRequests(sim)
    const t = await timed(bareClient, [], [requestsFile, sim.url, concurrency], bareClient.cli)
    return (t.cpu * 1000) / ((await simRequests(sim)) - before)
  }
  const runsOf = new Map(variants.map((v) => [v.label, []]))
  for (let r = 0; r < repeat; r++) {
    const floorCpuMsPerCall = withFloor ? await floor() : undefined
    for (const variant of variants) {
      const t = await measure(variant, questions, `home-${variant.label}-${r}`, r === 0 ? tableBytes : undefined)
      // the same variant at fewer questions: the CPU of the calls in between, without start-up or warm-up
      const small = slopeFrom > 0 ? await measure(variant, slopeFrom, `home-${variant.label}-${r}-small`) : undefined
      const runs = runsOf.get(variant.label)
      const startupCpu = startupOf.get(variant.label)
      runs.push({
        wallS: t.wall,
        cpuS: t.cpu,
        peakRssMb: Math.round(t.rssMb),
        llmCalls: t.calls,
        cpuMsPerCall: (t.cpu * 1000) / t.calls,
        marginalCpuMsPerCall: ((t.cpu - startupCpu) * 1000) / t.calls,
        callsPerCpuS: t.calls / (t.cpu - startupCpu),
        ...(small === undefined ? {} : {
          smallRun: { questions: slopeFrom, cpuS: small.cpu, llmCalls: small.calls },
          additionalCpuMsPerCall: ((t.cpu - small.cpu) * 1000) / (t.calls - small.calls)
        }),
        ...(floorCpuMsPerCall === undefined ? {} : {
          floorCpuMsPerCall,
          timesFloor: (t.cpu * 1000) / t.calls / floorCpuMsPerCall
        }),
        storeBytes: t.storeBytes,
        storeBytesPerQuestion: t.storeBytes / questions,
        tables: t.tables
      })
      console.log(variant.label, JSON.stringify(runs.at(-1)))
    }
  }
  const all = Fs.existsSync(resultsFile) ? JSON.parse(Fs.readFileSync(resultsFile, "utf8")) : {}
  for (const variant of variants) {
    const runs = runsOf.get(variant.label)
    let profile
    if (process.argv.includes("--profile")) {
      const dir = Path.join(base, `prof-${variant.label}`)
      const home = Path.join(base, `home-prof-${variant.label}`)
      Fs.cpSync(seedOf.get(variant.label), home, { recursive: true })
      await timed(variant, [...variant.nodeArgs, `--cpu-prof`, `--cpu-prof-dir=${dir}`], runArgs(home, questions), variant.profileCli)
      const file = Fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
      profile = summarizeProfile(JSON.parse(Fs.readFileSync(Path.join(dir, file), "utf8")), 20)
    }
    const spread = (key) => ({
      median: median(runs.map((x) => x[key])),
      min: Math.min(...runs.map((x) => x[key])),
      max: Math.max(...runs.map((x) => x[key]))
    })
    const result = {
      date: new Date().toISOString(),
      commit: variant.commit ??
        execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim(),
      loadAverage: Fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
      questions,
      concurrency: Number(concurrency),
      node: versionOf(variant.node),
      ...(variant.nodeArgs.length > 0 ? { nodeArgs: variant.nodeArgs.join(" ") } : {}),
      startupCpuS: startupOf.get(variant.label),
      marginalCpuMsPerCall: spread("marginalCpuMsPerCall"),
      ...(slopeFrom > 0 ? { slopeFrom, additionalCpuMsPerCall: spread("additionalCpuMsPerCall") } : {}),
      cpuMsPerCall: spread("cpuMsPerCall"),
      callsPerCpuS: spread("callsPerCpuS"),
      ...(withFloor ? { floorCpuMsPerCall: spread("floorCpuMsPerCall"), timesFloor: spread("timesFloor") } : {}),
      storeBytesPerQuestion: spread("storeBytesPerQuestion"),
      runs,
      profile
    }
    all[variant.label] = result
    console.log(`${variant.label}: ${result.marginalCpuMsPerCall.median.toFixed(2)} ms CPU per call (marginal), ` +
      `${Math.round(result.storeBytesPerQuestion.median / 1024)} KB per question`)
  }
  Fs.writeFileSync(resultsFile, JSON.stringify(all, null, 2) + "\n")
  writeReport(all, Path.join(here, "results.md"))
} finally {
  await stopSim(sim)
  Fs.rmSync(base, { recursive: true, force: true })
}
