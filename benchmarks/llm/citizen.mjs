// Is @deepnote-rag/llm a good citizen on shared vLLM servers, and does it ride out outages? Against the simulator (a child
// process), with closed-loop workers driving role-shaped calls through LlmClient.
// Build first:  npx tsc -b apps/llm-sim packages/llm
// Run:          node benchmarks/llm/citizen.mjs [--repeats 3] [--only solo,shared,priority,storm,overload,outage]
// Writes benchmarks/llm/citizen-results.json and citizen-results.md; with --only, the phases not run keep their
// previous results (each phase is dated).
import { LlmCallPolicy } from "@deepnote-rag/llm"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import {
  buildClient,
  call,
  closedLoop,
  getJson,
  median,
  percentile,
  post,
  sampleWaiting,
  serverLoad,
  startSim,
  stopSim,
  windowOf,
  withSim
} from "./citizen-lib.mjs"
import { arg } from "../lib/bench.mjs"
import { renderCitizen } from "./citizen-report.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))
const REPEATS = Number(arg("repeats", "3"))
const ONLY = arg("only", "solo,shared,priority,storm,overload,outage").split(",")
const SEQS = 64
// A 7–8B model decoding a batch of 64 on one GPU: ~20 ms steps, 4 tokens per step (speculative decoding) to keep the
// runs short; reply lengths exponential around a mean per role (notes long, verdicts one word), as in run.mjs.
const server = [
  "--port",
  "0",
  "--max-num-seqs",
  String(SEQS),
  "--step-base-ms",
  "20",
  "--tokens-per-step",
  "4",
  "--content",
  "lite",
  "--reasoning-mean-tokens-by-role",
  "init=200,update=250,plan=30,judge=0,answer=10"
]
const run = (effect) => Effect.runPromise(Effect.scoped(effect))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const spread = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values), values })

// == solo: one client on a server of its own. Adaptive against a sweep of static limits.
const soloOnce = (settings) =>
  withSim(server, (sim) =>
    run(Effect.gen(function*() {
      const { client } = yield* buildClient(sim.url, settings)
      const warm = 5000
      const measure = 15000
      const t0 = Date.now() + warm
      const t1 = t0 + measure
      let stopWaiting
      let g0
      setTimeout(() => {
        stopWaiting = sampleWaiting(sim.url)
        serverLoad(sim.url).then((l) => (g0 = l.generationTokens))
      }, warm)
      let g1
      setTimeout(() => serverLoad(sim.url).then((l) => (g1 = l.generationTokens)), warm + measure)
      const done = yield* closedLoop(client, 200, t1)
      const waiting = yield* Effect.promise(() => stopWaiting())
      const occupancy = yield* Effect.promise(() => getJson(`${sim.url}/sim/occupancy?from=${t0}&to=${t1}`))
      const limit = (yield* client.endpoints)[0].limit
      return {
        tokensPerSecond: (g1 - g0) / (measure / 1000),
        callsPerSecond: windowOf(done, t0, t1).callsPerSecond,
        occupancy: occupancy.occupancy,
        waitingP50: percentile(waiting, 0.5),
        waitingP95: percentile(waiting, 0.95),
        finalLimit: limit,
        failed: done.filter((d) => !d.ok).length
      }
    })))

const solo = async () => {
  const statics = [48, 56, 64, 72, 80, 96]
  const rounds = []
  for (let r = 0; r < REPEATS; r++) {
    const round = { adaptive: await soloOnce({}) }
    for (const n of statics) round[`static ${n}`] = await soloOnce({ perEndpointConcurrency: n })
    console.log("solo round", r, JSON.stringify(round))
    rounds.push(round)
  }
  const variants = Object.keys(rounds[0])
  const summary = Object.fromEntries(variants.map((v) => [v, {
    tokensPerSecond: spread(rounds.map((x) => x[v].tokensPerSecond)),
    occupancy: spread(rounds.map((x) => x[v].occupancy)),
    waitingP95: spread(rounds.map((x) => x[v].waitingP95)),
    finalLimit: spread(rounds.map((x) => x[v].finalLimit))
  }]))
  const best = statics.map((n) => `static ${n}`).sort((a, b) =>
    summary[b].tokensPerSecond.median - summary[a].tokensPerSecond.median
  )[0]
  const ratios = rounds.map((x) => x.adaptive.tokensPerSecond / x[best].tokensPerSecond)
  return { rounds, summary, bestStatic: best, adaptiveOverBestStatic: spread(ratios), maxNumSeqs: SEQS }
}

// == shared: two DeepNote clients and a background client (8 requests always in flight) on one server whose KV cache
// holds about half a full batch of these calls.
const sharedServer = [...server, "--kv-capacity-tokens", "16384", "--max-model-len", "8192", "--background-load", "8"]
const sharedOnce = (settings) =>
  withSim(sharedServer, (sim) =>
    run(Effect.gen(function*() {
      const a = yield* buildClient(sim.url, settings)
      const b = yield* buildClient(sim.url, settings)
      const warm = 8000
      const measure = 20000
      const t0 = Date.now() + warm
      const t1 = t0 + measure
      let p0
      setTimeout(() => serverLoad(sim.url).then((l) => (p0 = l.preemptions)), warm)
      const [da, db] = yield* Effect.all([
        closedLoop(a.client, 150, t1, { tag: "a" }),
        closedLoop(b.client, 150, t1, { tag: "b" })
      ], { concurrency: 2 })
      const load = yield* Effect.promise(() => serverLoad(sim.url))
      const occupancy = yield* Effect.promise(() => getJson(`${sim.url}/sim/occupancy?from=${t0}&to=${t1}`))
      const wa = windowOf(da, t0, t1)
      const wb = windowOf(db, t0, t1)
      const mean = (wa.tokensPerSecond + wb.tokensPerSecond) / 2
      return {
        clientTokensPerSecond: [wa.tokensPerSecond, wb.tokensPerSecond],
        clientCallsPerSecond: [wa.callsPerSecond, wb.callsPerSecond],
        worstDeviationFromEqualShare: Math.max(...[wa, wb].map((w) => Math.abs(w.tokensPerSecond - mean) / mean)),
        totalTokensPerSecond: wa.tokensPerSecond + wb.tokensPerSecond,
        preemptions: load.preemptions - p0,
        occupancy: occupancy.occupancy,
        failed: [...da, ...db].filter((d) => !d.ok).length
      }
    })))

const shared = async () => {
  const rounds = []
  for (let r = 0; r < REPEATS; r++) {
    const round = { adaptive: await sharedOnce({}), "static (max_num_seqs + 1/8)": await sharedOnce({ adaptiveConcurrency: false }) }
    console.log("shared round", r, JSON.stringify(round))
    rounds.push(round)
  }
  const summary = Object.fromEntries(Object.keys(rounds[0]).map((v) => [v, {
    worstDeviationFromEqualShare: spread(rounds.map((x) => x[v].worstDeviationFromEqualShare)),
    preemptions: spread(rounds.map((x) => x[v].preemptions)),
    totalTokensPerSecond: spread(rounds.map((x) => x[v].totalTokensPerSecond)),
    occupancy: spread(rounds.map((x) => x[v].occupancy))
  }]))
  return { rounds, summary, server: sharedServer.join(" ") }
}

// == priority: a batch backlog (200 workers) and interactive calls (4 workers, one short answer call then 100 ms of
// thought each); p95 latency of the interactive calls with and without priorities. "One process": the server's shared
// engine (one client, both classes). "Two processes": the interactive calls come from a client of their own.
const priorityOnce = (withPriorities, twoProcesses) =>
  withSim([...server, "--scheduling-policy", "priority"], (sim) =>
    run(Effect.gen(function*() {
      const batchClient = (yield* buildClient(sim.url, {})).client
      const interactiveClient = twoProcesses ? (yield* buildClient(sim.url, {})).client : batchClient
      const warm = 5000
      const measure = 15000
      const t0 = Date.now() + warm
      const t1 = t0 + measure
      const flat = { priority: 0 }
      const batch = Effect.fork(closedLoop(batchClient, 200, t1, { tag: "b", policy: withPriorities ? { workClass: "batch" } : flat }))
      const latencies = []
      const interactive = (w) =>
        Effect.gen(function*() {
          for (let n = 0; Date.now() < t1; n++) {
            const start = Date.now()
            yield* interactiveClient.chat({ ...call(w, 7, `i${n}-`), role: "answer" }).pipe(
              withPriorities ? LlmCallPolicy.interactive : LlmCallPolicy.locally({ workClass: "interactive", priority: 0 }),
              Effect.either
            )
            if (start >= t0) latencies.push(Date.now() - start)
            yield* Effect.sleep(100)
          }
        })
      const fiber = yield* batch
      yield* Effect.sleep(warm)
      yield* Effect.forEach([0, 1, 2, 3], interactive, { concurrency: "unbounded", discard: true })
      yield* fiber.await
      return { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), calls: latencies.length }
    })))

const priority = async () => {
  const rounds = []
  for (let r = 0; r < REPEATS; r++) {
    const round = {
      "one process, with priorities": await priorityOnce(true, false),
      "one process, without": await priorityOnce(false, false),
      "two processes, with priorities": await priorityOnce(true, true),
      "two processes, without": await priorityOnce(false, true)
    }
    console.log("priority round", r, JSON.stringify(round))
    rounds.push(round)
  }
  const ratio = (setup) => spread(rounds.map((x) => x[`${setup}, without`].p95 / x[`${setup}, with priorities`].p95))
  return {
    rounds,
    p95Improvement: { "one process": ratio("one process"), "two processes": ratio("two processes") },
    summary: Object.fromEntries(Object.keys(rounds[0]).map((v) => [v, spread(rounds.map((x) => x[v].p95))]))
  }
}

// == storm: 30% of requests answered 429, 503 or 529 (Retry-After: 1 s for 429 and 529).
/** 30 s of closed-loop calls from `workers` workers against a server answering with faults: calls, losses, retries. */
const underFaults = (serverArgs, settings, workers, tag) =>
  withSim(serverArgs, (sim) =>
    run(Effect.gen(function*() {
      const { client, ledger } = yield* buildClient(sim.url, settings)
      const seconds = 30
      const done = yield* closedLoop(client, workers, Date.now() + seconds * 1000, { tag })
      const usage = yield* ledger.snapshot
      const stats = yield* Effect.promise(() => getJson(`${sim.url}/sim/stats`))
      const calls = done.length
      const attempts = usage.total.attempts
      const faults = Object.values(stats.faults).reduce((n, x) => n + x, 0)
      return {
        finalLimit: (yield* client.endpoints)[0].limit,
        callsPerSecond: calls / seconds,
        calls,
        lost: done.filter((d) => !d.ok).length,
        attempts,
        retries: attempts - calls,
        retriesPerAttempt: (attempts - calls) / attempts,
        retriesPerCall: (attempts - calls) / calls,
        faults: stats.faults,
        shed: faults,
        faultShareOfRequests: faults / stats.requests
      }
    })))

const stormOnce = () =>
  underFaults([...server, "--fault-rate", "0.3", "--faults", "429,503,529", "--retry-after", "1"], {}, 64, "s")

const storm = async () => {
  const rounds = []
  for (let r = 0; r < REPEATS; r++) {
    const once = await stormOnce()
    console.log("storm round", r, JSON.stringify(once))
    rounds.push(once)
  }
  return {
    rounds,
    lost: spread(rounds.map((x) => x.lost)),
    retriesPerAttempt: spread(rounds.map((x) => x.retriesPerAttempt)),
    retriesPerCall: spread(rounds.map((x) => x.retriesPerCall))
  }
}

// == overload: a storm the clients cause. The server sheds load: while 8 requests wait beyond its batch it answers
// 429, 503 or 529 (Retry-After: 1 s) to new ones, as a gateway or an overloaded server does. 200 closed-loop workers.
const overloadServer = [...server, "--shed-at-waiting", "8", "--faults", "429,503,529", "--retry-after", "1"]
const overloadOnce = (settings) => underFaults(overloadServer, settings, 200, "o")

const overload = async () => {
  const clients = {
    adaptive: {},
    "static (max_num_seqs + 1/8)": { adaptiveConcurrency: false },
    "static 200 (every worker in flight)": { perEndpointConcurrency: 200 }
  }
  const rounds = []
  for (let r = 0; r < REPEATS; r++) {
    const round = {}
    for (const [name, settings] of Object.entries(clients)) round[name] = await overloadOnce(settings)
    console.log("overload round", r, JSON.stringify(round))
    rounds.push(round)
  }
  const summary = Object.fromEntries(
    Object.keys(clients).map((name) => [name, {
      callsPerSecond: spread(rounds.map((x) => x[name].callsPerSecond)),
      lost: spread(rounds.map((x) => x[name].lost)),
      retriesPerCall: spread(rounds.map((x) => x[name].retriesPerCall)),
      shed: spread(rounds.map((x) => x[name].shed)),
      finalLimit: spread(rounds.map((x) => x[name].finalLimit))
    }])
  )
  return { server: overloadServer.join(" "), rounds, summary }
}

// == outage: 100 questions of 8 calls each, all at once; the server answers 503 to everything for 15 s
// (/sim/down), or its process is killed and restarted on the same port 15 s later.
const questions = (client) =>
  Effect.forEach(Array.from({ length: 100 }, (_, q) => q), (q) =>
    Effect.forEach([0, 1, 2, 3, 4, 5, 6, 7], (n) => client.chat(call(q, n, "o")), { discard: true }).pipe(Effect.either), {
    concurrency: "unbounded"
  })

const outageOnce = async (kind) => {
  let sim = await startSim(server)
  try {
    return await run(Effect.gen(function*() {
      const { client } = yield* buildClient(sim.url, { model: "deepnote-sim" })
      const t0 = Date.now()
      const driver = (async () => {
        await sleep(2000)
        if (kind === "503") {
          await post(`${sim.url}/sim/down`)
          await sleep(15000)
          await post(`${sim.url}/sim/up`)
        } else {
          const port = sim.port
          await stopSim(sim)
          await sleep(15000)
          sim = await startSim(server.map((a, i) => (server[i - 1] === "--port" ? String(port) : a)))
        }
      })()
      const results = yield* questions(client)
      yield* Effect.promise(() => driver)
      return {
        questions: results.length,
        failed: results.filter((r) => r._tag === "Left").length,
        wallSeconds: (Date.now() - t0) / 1000
      }
    }))
  } finally {
    await stopSim(sim)
  }
}

const outage = async () => {
  const rounds = []
  for (let r = 0; r < REPEATS; r++) {
    const round = { "15 s of 503 (/sim/down)": await outageOnce("503"), "process killed, restarted 15 s later": await outageOnce("restart") }
    console.log("outage round", r, JSON.stringify(round))
    rounds.push(round)
  }
  return { rounds }
}

const resultsFile = Path.join(here, "citizen-results.json")
const phases = { solo, shared, priority, storm, overload, outage }
const previous = Fs.existsSync(resultsFile) ? JSON.parse(Fs.readFileSync(resultsFile, "utf8")) : {}
/** A phase kept from the previous results, dated by that run when it was not dated itself. */
const carried = (phase) =>
  previous[phase].measured !== undefined ? previous[phase] : {
    ...previous[phase],
    measured: {
      at: previous.started,
      loadAverageAtStart: previous.machine?.loadAverageAtStart,
      loadAverageAtEnd: previous.machine?.loadAverageAtEnd
    }
  }
const report = {
  ...Object.fromEntries(Object.keys(phases).filter((p) => previous[p] !== undefined).map((p) => [p, carried(p)])),
  started: new Date().toISOString(),
  machine: { node: process.version, cpus: Os.cpus().length, loadAverageAtStart: Os.loadavg()[0] },
  repeats: REPEATS,
  server: server.join(" ")
}
for (const name of ONLY) {
  const loadAverageAtStart = Os.loadavg()[0]
  const result = await phases[name]()
  report[name] = { ...result, measured: { at: new Date().toISOString(), loadAverageAtStart, loadAverageAtEnd: Os.loadavg()[0] } }
  Fs.writeFileSync(resultsFile, JSON.stringify(report, null, 2) + "\n")
}
report.machine.loadAverageAtEnd = Os.loadavg()[0]
Fs.writeFileSync(Path.join(here, "citizen-results.json"), JSON.stringify(report, null, 2) + "\n")
Fs.writeFileSync(Path.join(here, "citizen-results.md"), renderCitizen(report))
console.log(renderCitizen(report))
