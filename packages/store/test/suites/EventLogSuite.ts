import { Answer, type PipelineEvent } from "@deepnote-rag/core"
import { assert, describe } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { EventLog, Journal, RunStore } from "../../src/index.js"
import { manifest, question } from "../fixtures.js"
import type { SuiteIt } from "../layers.js"

const answered = (questionId: string, step = 1): PipelineEvent => ({
  _tag: "Answered",
  questionId,
  step,
  elapsedMs: 3,
  answer: new Answer({ text: "x" }),
  durationMs: 1
})

export const eventLogSuite = (it: SuiteIt) =>
  describe("EventLog", () => {
    it.effect("numbers each run's events 1, 2, 3, … and reads them back after a Last-Event-ID", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const log = yield* EventLog
        const a = yield* store.createRun({ manifest: manifest() })
        const b = yield* store.createRun({ manifest: manifest() })
        assert.deepStrictEqual(yield* log.append(a.id, "q1", [answered("q1"), answered("q1", 2)]), [1, 2])
        assert.deepStrictEqual(yield* log.append(b.id, "q9", [answered("q9")]), [1])
        assert.deepStrictEqual(yield* log.append(a.id, "q2", [answered("q2")]), [3])
        assert.deepStrictEqual(yield* log.append(a.id, "q2", []), [])
        const all = yield* log.since(a.id)
        assert.deepStrictEqual(all.map((e) => [e.seq, e.itemId]), [[1, "q1"], [2, "q1"], [3, "q2"]])
        assert.strictEqual(all[2]!.event._tag, "Answered")
        assert.deepStrictEqual((yield* log.since(a.id, { afterSeq: 2 })).map((e) => e.itemId), ["q2"])
        assert.deepStrictEqual((yield* log.since(a.id, { afterSeq: 0, limit: 1 })).map((e) => e.seq), [1])
        const error = yield* Effect.flip(log.append("r-nope", "q1", [answered("q1")]))
        assert.include(error.message, "run r-nope not found")
      }))

    it.effect("appends by position are idempotent: a replayed or racing event is logged once", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const log = yield* EventLog
        const run = yield* store.createRun({ manifest: manifest() })
        const [e0, e1, e2] = [answered("q1", 0), answered("q1", 1), answered("q1", 2)]
        assert.deepStrictEqual(yield* log.append(run.id, "q1", [e0], { position: 0 }), [1])
        assert.deepStrictEqual(yield* log.append(run.id, "q1", [e1], { position: 1 }), [2])
        // a resumed (or second) execution re-emits positions 0 and 1, then goes on
        assert.deepStrictEqual(yield* log.append(run.id, "q1", [e0], { position: 0 }), [])
        assert.deepStrictEqual(yield* log.append(run.id, "q1", [e1, e2], { position: 1 }), [3])
        // two executions racing on the same position: one wins
        const racing = yield* Effect.all(
          [
            log.append(run.id, "q1", [answered("q1", 3)], { position: 3 }),
            log.append(run.id, "q1", [answered("q1", 3)], { position: 3 })
          ],
          { concurrency: 2 }
        )
        assert.strictEqual(racing.flat().length, 1)
        assert.deepStrictEqual((yield* log.since(run.id)).map((e) => e.event.step), [0, 1, 2, 3])
      }))

    it.effect("concurrent appenders leave no gap, and a reader following seq > last seen misses nothing", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const log = yield* EventLog
        const run = yield* store.createRun({ manifest: manifest() })
        const writers = 8
        const appendsPerWriter = 15
        const total = writers * appendsPerWriter * 2
        const seen = yield* Ref.make<ReadonlyArray<number>>([])
        // the reader polls "seq > last seen" while the writers commit, as an SSE stream on another machine would
        const reader = yield* Effect.gen(function*() {
          let last = 0
          while (last < total) {
            const page = yield* log.since(run.id, { afterSeq: last, limit: 7 })
            if (page.length > 0) {
              yield* Ref.update(seen, (s) => [...s, ...page.map((e) => e.seq)])
              last = page[page.length - 1]!.seq
            } else {
              yield* Effect.yieldNow()
            }
          }
        }).pipe(Effect.fork)
        const seqs = yield* Effect.forEach(
          Array.from({ length: writers }, (_, w) => `q${w}`),
          (itemId) =>
            Effect.forEach(
              Array.from({ length: appendsPerWriter }),
              () => log.append(run.id, itemId, [answered(itemId), answered(itemId, 2)])
            ),
          { concurrency: "unbounded" }
        )
        yield* Fiber.join(reader)
        const expected = Array.from({ length: total }, (_, i) => i + 1)
        assert.deepStrictEqual([...seqs.flat(2)].sort((x, y) => x - y), expected)
        assert.deepStrictEqual(yield* Ref.get(seen), expected)
        for (const batch of seqs.flat()) assert.strictEqual(batch[1], batch[0]! + 1, "one append's events are adjacent")
      }))

    it.effect("journal entries written with an event: a replayed entry is skipped, another request at its position fails and writes nothing", () =>
      Effect.gen(function*() {
        const store = yield* RunStore
        const log = yield* EventLog
        const journal = yield* Journal
        const run = yield* store.createRun({ manifest: manifest() })
        yield* store.addItems(run.id, [question("q1")])
        const entry = (seq: number, requestHash: string) => ({
          runId: run.id,
          itemId: "q1",
          seq,
          kind: "plan",
          requestHash,
          response: { queries: ["a"], raw: `reply ${seq}` },
          usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
          latencyMs: 5
        })
        assert.deepStrictEqual(
          yield* log.append(run.id, "q1", [answered("q1", 0)], { position: 0, journal: [entry(0, "h0")] }),
          [1]
        )
        // a resumed execution writes the same entry and event again: both are already there
        assert.deepStrictEqual(
          yield* log.append(run.id, "q1", [answered("q1", 0)], { position: 0, journal: [entry(0, "h0")] }),
          []
        )
        const mismatch = yield* Effect.flip(
          log.append(run.id, "q1", [answered("q1", 1)], { position: 1, journal: [entry(1, "h1"), entry(0, "other")] })
        )
        assert.strictEqual(mismatch._tag, "JournalMismatch")
        // the failed append left nothing: not its first entry, not its event, and no number was used up
        assert.deepStrictEqual((yield* journal.entries(run.id, "q1")).map((e) => [e.seq, e.requestHash]), [[0, "h0"]])
        assert.deepStrictEqual(yield* log.append(run.id, "q1", [answered("q1", 1)], { position: 1 }), [2])
        const [totals] = yield* journal.totals(run.id)
        assert.deepStrictEqual([totals?.itemId, totals?.promptTokens, totals?.completionTokens], ["q1", 10, 2])
        assert.deepStrictEqual((yield* journal.entries(run.id, "q1"))[0]?.response, entry(0, "h0").response)
      }))
  })
