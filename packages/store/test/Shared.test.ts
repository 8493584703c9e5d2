import { Answer } from "@deepnote/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Ref, Schema } from "effect"
import { EventLog, RunStore, SharedCache, Store } from "../src/index.js"
import { manifest } from "./fixtures.js"

describe("EventLog and SharedCache", () => {
  it.effect("events are stored per run with increasing seq and read back after a Last-Event-ID", () =>
    Effect.gen(function*() {
      const store = yield* RunStore
      const log = yield* EventLog
      const a = yield* store.createRun({ manifest: manifest(), id: "r-a" })
      const b = yield* store.createRun({ manifest: manifest(), id: "r-b" })
      const answered = (questionId: string) => ({
        _tag: "Answered" as const,
        questionId,
        step: 1,
        elapsedMs: 3,
        answer: new Answer({ text: "x" }),
        durationMs: 1
      })
      const seqs = yield* log.append(a.id, "q1", [answered("q1"), answered("q1")])
      yield* log.append(b.id, "q9", [answered("q9")])
      yield* log.append(a.id, "q2", [answered("q2")])
      const all = yield* log.since(a.id)
      assert.deepStrictEqual(all.map((e) => e.itemId), ["q1", "q1", "q2"])
      assert.strictEqual(all[2]!.event._tag, "Answered")
      const after = yield* log.since(a.id, { afterSeq: seqs[1]! })
      assert.deepStrictEqual(after.map((e) => e.itemId), ["q2"])
    }).pipe(Effect.provide(Store.layerMemory)))

  it.effect("the shared cache computes once per key and namespace", () =>
    Effect.gen(function*() {
      const cache = yield* SharedCache
      const computed = yield* Ref.make(0)
      const compute = (v: number) => Effect.as(Ref.update(computed, (n) => n + 1), [v])
      const schema = Schema.Array(Schema.Number)
      assert.deepStrictEqual(yield* cache.getOrCompute("retrieval", "k1", schema, compute(1)), [1])
      assert.deepStrictEqual(yield* cache.getOrCompute("retrieval", "k1", schema, compute(2)), [1])
      assert.deepStrictEqual(yield* cache.getOrCompute("other", "k1", schema, compute(3)), [3])
      assert.strictEqual(yield* Ref.get(computed), 2)
      assert.isTrue(Option.isNone(yield* cache.get("retrieval", "k2", schema)))
      assert.strictEqual(yield* cache.clear("retrieval"), 1)
      assert.isTrue(Option.isNone(yield* cache.get("retrieval", "k1", schema)))
    }).pipe(Effect.provide(Store.layerMemory)))
})
