import { defaultRunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { start } from "@deepnote-rag/llm-sim"
import { Journal, Store } from "@deepnote-rag/store"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { serverLayer } from "../src/index.js"
import { clientWith, homeWithTenant, loopbackTest, sampleQuestions, settings } from "./Harness.js"
import { takeEvents } from "./Sse.js"

const questions = Fs.readFileSync(sampleQuestions, "utf8").split("\n").filter((l) => l.trim() !== "").slice(0, 8)
  .join("\n")

/** LLM calls journaled for a run, read from the home's store. */
const journaledLlmCalls = (home: string, runId: string) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const totals = yield* journal.totals(runId)
    return totals.reduce((sum, t) => sum + t.llmCalls, 0)
  }).pipe(Effect.provide(Store.layer({ url: Path.join(home, "deepnote.sqlite") })), Effect.orDie)

const main = Path.resolve(import.meta.dirname, "../../cli/bin/deepnote.mjs")

/** `deepnote serve` on the same home in a child process, with queue workers; killed when the scope closes. */
const serveInChild = (home: string, llmUrl: string) =>
  Effect.acquireRelease(
    Effect.async<ChildProcess>((resume) => {
      const child = spawn(process.execPath, [
        main,
        "serve",
        "--home",
        home,
        "--port",
        "0",
        "--workers",
        "2",
        "--engine",
        "llm",
        "--llm-url",
        llmUrl,
        "--no-llm-cache"
      ], { env: { NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      const collect = (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes("Listening on")) resume(Effect.succeed(child))
      }
      child.stdout.on("data", collect)
      child.stderr.on("data", collect)
      child.on("exit", (code) => resume(Effect.die(new Error(`deepnote serve exited (${code}): ${out}`))))
    }),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.on("exit", () => resume(Effect.void))
        child.kill("SIGKILL")
      })
  )

describe("fault injection over HTTP", () => {
  it.scopedLive(
    "two servers on the same home (a rolling restart): no question answered twice, each LLM call made once",
    () =>
      Effect.gen(function*() {
        // one simulator per server, so that each one's share of the calls is seen
        const sim = yield* start({ content: "lite", stepBaseMs: 3 })
        const sim2 = yield* start({ content: "lite", stepBaseMs: 3 })
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        // the second server is another process, as in a rolling restart (two in one process would share one
        // thread, and SQLite's busy wait would block the connection holding the lock)
        yield* serveInChild(home, sim2.url)
        const a = yield* Layer.build(
          serverLayer({
            home,
            settings: settings({ defaults: { ...defaultRunConfig, engine: "llm" }, workers: 2 }),
            llmSettings: LlmSettings.layer({ endpoints: [{ url: `${sim.url}/v1` }], cache: false })
          }).pipe(Layer.provideMerge(loopbackTest))
        )
        const created = yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          return yield* client.runs.create({
            payload: { collection: "wiki", jsonl: questions, concurrency: 2, config: { maxStep: 1, maxFailure: 1 } },
            urlParams: {}
          })
        }).pipe(Effect.provide(a))
        assert.strictEqual(created.counts.total, 8)

        // both servers' queue workers take its questions
        const events = yield* takeEvents(
          HttpClientRequest.get(`/v1/runs/${created.id}/events`).pipe(HttpClientRequest.bearerToken(key)),
          100_000
        ).pipe(Effect.provide(a))
        const end = events[events.length - 1]!
        assert.strictEqual(end.event, "end")
        assert.strictEqual(JSON.parse(end.data).status, "completed")
        const answered = events.filter((e) => e.event === "Answered").map((e) => JSON.parse(e.data).itemId as string)
        assert.strictEqual(answered.length, 8, "eight answers")
        assert.strictEqual(new Set(answered).size, 8, "none twice")

        const journaled = yield* journaledLlmCalls(home, created.id)
        assert.isAbove(journaled, 0)
        assert.strictEqual(sim.metrics.success + sim2.metrics.success, journaled, "every LLM call made once")
        assert.isAbove(sim2.metrics.success, 0, "the second server answered some of the questions")
      }),
    120_000
  )
})
