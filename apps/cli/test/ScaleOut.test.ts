import { start } from "@deepnote-rag/llm-sim"
import { EventLog, Journal, Store } from "@deepnote-rag/store"
import { EmbeddedPostgres, PostgresDatabase } from "@deepnote-rag/store/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type Child, exportedResults, spawnCli, untilSimRequests } from "./CrashHarness.js"
import { indexedHome, llmUrlArgs, runCli, sampleQuestions } from "./RunCli.js"

const questions = 24

/** In the shared store: LLM calls journaled for the run, and how many `Answered` events each question logged. */
const storeFacts = (url: string, runId: string) =>
  Effect.gen(function*() {
    const journal = yield* Journal
    const log = yield* EventLog
    const totals = yield* journal.totals(runId)
    const events = yield* log.since(runId, { limit: 100_000 })
    const answered = new Map<string, number>()
    for (const e of events) {
      if (e.event._tag === "Answered") answered.set(e.itemId, (answered.get(e.itemId) ?? 0) + 1)
    }
    return { journaled: totals.reduce((n, t) => n + t.llmCalls, 0), answered }
  }).pipe(Effect.provide(Store.layer({ url })), Effect.orDie)

const Postgres = PostgresDatabase.layer.pipe(Layer.provide(EmbeddedPostgres.layer))

describe("queue workers on a shared Postgres store (child processes, simulator, a real Postgres)", () => {
  it.scopedLive(
    "two workers, one killed mid-run and restarted: results identical to one process, each question answered once",
    () =>
      Effect.gen(function*() {
        const { url } = yield* PostgresDatabase
        const sim = yield* start({ stepBaseMs: 6, tokensPerStep: 4, maxNumSeqs: 16 })
        const home = yield* indexedHome
        const llm = llmUrlArgs(`${sim.url}/v1`, { cache: false })
        const knobs = ["--dataset", sampleQuestions, "-c", "sample", "--engine", "llm", "--limit", String(questions)]

        // the reference: one process executes the run
        const reference = yield* runCli(["run", ...knobs, ...llm, "--home", home, "--store", url, "--quiet"])
        assert.strictEqual(reference.code, 0, reference.stderr)
        const referenceId = /run (r-[0-9a-z-]+)/.exec(reference.stdout)![1]!
        const expected = yield* exportedResults(home, referenceId, "--store", url)
        assert.strictEqual(expected.length, questions)

        // the same questions as jobs for two workers
        const enqueued = yield* runCli(["run", ...knobs, ...llm, "--home", home, "--store", url, "--enqueue"])
        assert.strictEqual(enqueued.code, 0, enqueued.stderr)
        const runId = enqueued.stdout.trim().split("\n")[0]!
        assert.match(runId, /^r-/)
        const requestsBefore = sim.metrics.requests
        const worker = (): Child =>
          spawnCli(["worker", ...llm, "--home", home, "--store", url, "--concurrency", "3", "--idle-exit", "3"], {
            DEEPNOTE_QUEUE_LOCK_EXPIRATION: "2 seconds",
            DEEPNOTE_QUEUE_POLL_INTERVAL: "100 millis"
          })
        const a = worker()
        const b = worker()
        // kill one worker in the middle of the run, then start it again
        const alive = yield* untilSimRequests(sim, requestsBefore + 60, a)
        assert.isTrue(alive, "worker A finished before the kill")
        a.process.kill("SIGKILL")
        assert.strictEqual(yield* Effect.promise(() => a.exited), null)
        const restarted = worker()
        const [codeB, codeRestarted] = yield* Effect.promise(() => Promise.all([b.exited, restarted.exited]))
        assert.strictEqual(codeB, 0)
        assert.strictEqual(codeRestarted, 0)

        const status = yield* runCli(["status", runId, "--home", home, "--store", url, "--json"])
        const run = JSON.parse(status.stdout) as { status: string; counts: { done: number } }
        assert.strictEqual(run.status, "completed")
        assert.strictEqual(run.counts.done, questions)
        const actual = yield* exportedResults(home, runId, "--store", url)
        assert.deepStrictEqual(actual.map(({ id: _, ...r }) => r), expected.map(({ id: _, ...r }) => r))
        const facts = yield* storeFacts(url, runId)
        assert.strictEqual(facts.answered.size, questions)
        assert.isTrue([...facts.answered.values()].every((n) => n === 1), "each question answered once")
        // only calls in flight at the kill were sent again: at most one per question the killed worker held (3)
        const sent = sim.metrics.requests - requestsBefore
        assert.isAtMost(sent - facts.journaled, 3)
      }).pipe(Effect.provide(Postgres)),
    { timeout: 240_000 }
  )
})
