import { assert, describe } from "@effect/vitest"
import { Effect, Ref, Schema } from "effect"
import { Journal, RunStore } from "../../src/index.js"
import { manifest, question, result } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

const Reply = Schema.Struct({ text: Schema.String, at: Schema.DateFromString })

const setup = Effect.gen(function*() {
  const store = yield* RunStore
  const run = yield* store.createRun({ manifest: manifest() })
  yield* store.addItems(run.id, [question("q1"), question("q2")])
  return run.id
})

/** A fake role call that counts executions. */
const scripted = (calls: Ref.Ref<number>, text: string) =>
  Effect.as(Ref.update(calls, (n) => n + 1), { text, at: new Date(0) })

export const journalSuite = (it: SuiteIt) =>
  describe("Journal", () => {
    it.effect("appends and returns entries ordered by seq; appends are idempotent; totals sum tokens", () =>
      Effect.gen(function*() {
        const runId = yield* setup
        const journal = yield* Journal
        for (const seq of [2, 0, 1]) {
          yield* journal.append({
            runId,
            itemId: "q1",
            seq,
            kind: seq === 0 ? "retrieve" : "init",
            requestHash: `h${seq}`,
            response: { seq },
            usage: seq === 0 ? undefined : { promptTokens: 10, completionTokens: seq },
            latencyMs: 4
          })
        }
        yield* journal.append({
          runId,
          itemId: "q1",
          seq: 1,
          kind: "init",
          requestHash: "h1",
          response: { seq: 1 },
          latencyMs: 9
        })
        const entries = yield* journal.entries(runId, "q1")
        assert.deepStrictEqual(entries.map((e) => [e.seq, e.kind, e.response]), [
          [0, "retrieve", { seq: 0 }],
          [1, "init", { seq: 1 }],
          [2, "init", { seq: 2 }]
        ])
        assert.deepStrictEqual(entries[1]!.usage, { promptTokens: 10, completionTokens: 1 })
        const mismatch = yield* Effect.flip(
          journal.append({
            runId,
            itemId: "q1",
            seq: 1,
            kind: "init",
            requestHash: "changed",
            response: 0,
            latencyMs: 1
          })
        )
        assert.strictEqual(mismatch._tag, "JournalMismatch")
        assert.include(mismatch.message, `run ${runId}, item q1, call #1`)
        assert.deepStrictEqual(yield* journal.totals(runId), [
          { itemId: "q1", calls: 3, llmCalls: 2, promptTokens: 20, completionTokens: 3, latencyMs: 12 }
        ])
        assert.deepStrictEqual(yield* journal.entries(runId, "q2"), [])
      }))

    it.effect("appendAll writes many entries in one transaction, and a duplicate position with another hash fails", () =>
      Effect.gen(function*() {
        const runId = yield* setup
        const journal = yield* Journal
        const entry = (itemId: string, seq: number, requestHash = `h${seq}`) => ({
          runId,
          itemId,
          seq,
          kind: "plan",
          requestHash,
          response: [seq],
          usage: { promptTokens: 1 },
          latencyMs: 0.5
        })
        const many = Array.from({ length: 450 }, (_, seq) => entry(seq % 2 === 0 ? "q1" : "q2", seq))
        yield* journal.appendAll(many)
        yield* journal.appendAll(many)
        assert.strictEqual((yield* journal.entries(runId, "q1")).length, 225)
        const totals = yield* journal.totals(runId)
        assert.deepStrictEqual(totals.map((t) => [t.itemId, t.calls, t.promptTokens, t.latencyMs]), [
          ["q1", 225, 225, 112.5],
          ["q2", 225, 225, 112.5]
        ])
        const error = yield* Effect.flip(journal.appendAll([entry("q1", 1000), entry("q1", 1000, "other")]))
        assert.strictEqual(error._tag, "JournalMismatch")
        assert.strictEqual((yield* journal.entries(runId, "q1")).length, 225, "nothing of the failed batch is left")
      }))

    it.effect("replaying serves journaled calls, executes only the missing ones, and refuses changed requests", () =>
      Effect.gen(function*() {
        const runId = yield* setup
        const journal = yield* Journal
        const calls = yield* Ref.make(0)
        const spec = (kind: string, request: string) => ({ kind, requestHash: request, schema: Reply })

        // First attempt: two calls succeed, then the process "crashes" before the third.
        const first = yield* journal.replaying(runId, "q1")
        yield* first.call(spec("init", "r1"), scripted(calls, "note"))
        yield* first.call({ ...spec("plan", "r2"), usage: () => ({ promptTokens: 7 }) }, scripted(calls, "queries"))
        assert.strictEqual(yield* Ref.get(calls), 2)

        // Resume: the same two calls replay, only the third executes.
        const second = yield* journal.replaying(runId, "q1")
        const a = yield* second.call(spec("init", "r1"), scripted(calls, "different"))
        assert.deepStrictEqual(a, { text: "note", at: new Date(0) })
        yield* second.call(spec("plan", "r2"), scripted(calls, "different"))
        const c = yield* second.call(spec("answer", "r3"), scripted(calls, "Paris"))
        assert.strictEqual(c.text, "Paris")
        assert.strictEqual(yield* Ref.get(calls), 3)
        assert.deepStrictEqual(yield* second.stats, { replayed: 2, executed: 1 })
        assert.deepStrictEqual((yield* journal.entries(runId, "q1")).map((e) => e.kind), ["init", "plan", "answer"])

        // A changed prompt at call #1 is a mismatch naming run, item, seq and kind.
        const third = yield* journal.replaying(runId, "q1")
        yield* third.call(spec("init", "r1"), scripted(calls, "x"))
        const error = yield* Effect.flip(third.call(spec("plan", "changed"), scripted(calls, "x")))
        assert.strictEqual(error._tag, "JournalMismatch")
        if (error._tag === "JournalMismatch") {
          assert.deepStrictEqual([error.runId, error.itemId, error.seq, error.kind], [runId, "q1", 1, "plan"])
        }
        assert.strictEqual(yield* Ref.get(calls), 3)
      }))

    it.effect("persist on-complete buffers entries and completeItem writes them with the result", () =>
      Effect.gen(function*() {
        const runId = yield* setup
        const journal = yield* Journal
        const store = yield* RunStore
        const calls = yield* Ref.make(0)
        const replay = yield* journal.replaying(runId, "q2", { persist: "on-complete" })
        yield* replay.call({ kind: "init", requestHash: "a", schema: Reply }, scripted(calls, "n"))
        yield* replay.call({ kind: "answer", requestHash: "b", schema: Reply }, scripted(calls, "y"))
        assert.deepStrictEqual(yield* journal.entries(runId, "q2"), [])
        const unsaved = yield* replay.unsaved
        assert.deepStrictEqual(unsaved.map((e) => e.seq), [0, 1])
        assert.deepStrictEqual(unsaved[0]!.response, { text: "n", at: new Date(0).toISOString() })
        yield* store.completeItem({ runId, itemId: "q2", result: result(question("q2")), journal: unsaved })
        assert.deepStrictEqual((yield* journal.entries(runId, "q2")).map((e) => e.requestHash), ["a", "b"])
      }))
  })
