import { AlignItemResult, type AlignRole, PreferencePair, type RoleOutcome } from "@deepnote-rag/core"
import { parseRankReply } from "@deepnote-rag/llm"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import * as Path from "node:path"
import { keptPairs, mixCounts, rolePath, writePairs } from "../src/index.js"

const pair = (role: AlignRole, question: string, n: number): PreferencePair => ({
  prompt: [{ role: "system", content: `instructions of ${role}` }, {
    role: "user",
    content: `### Question\n${question}`
  }],
  chosen: [{ role: "assistant", content: `good ${n}` }],
  rejected: [{ role: "assistant", content: `bad ${n}` }],
  role,
  meta: {
    question_id: question,
    role,
    sampling: {
      chosen: { sample: 0, temperature: 0.1, top_p: 0.1, seed: 66 },
      rejected: { sample: 8, temperature: 0.9, top_p: 0.9, seed: 74 },
      top_k: 5
    },
    judge: { method: "rank", model: "extractive", candidates: 3, chosen: "best", rejected: "worst" }
  }
})

/** `n` questions: every one has init and plan pairs, every second an update pair, every fifth an answer pair. */
const results = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const q = `q${i}`
    const outcome = (role: AlignRole, has: boolean): RoleOutcome =>
      has
        ? { role, samples: 9, distinct: 3, pair: pair(role, q, i) }
        : { role, samples: 9, distinct: 1, dropped: "identical-samples" }
    return new AlignItemResult({
      questionId: q,
      topK: 5,
      outcomes: [
        outcome("init", true),
        outcome("plan", true),
        outcome("update", i % 2 === 0),
        outcome("answer", i % 5 === 0)
      ],
      elapsedMs: 1
    })
  })

describe("DNAlign output", () => {
  it("the paper's mix scales every quota by one factor to what is available", () => {
    assert.deepStrictEqual(
      mixCounts({ init: 5000, plan: 4000, update: 3000, answer: 900 }, "paper"),
      { init: 1900, plan: 1900, update: 1900, answer: 300 }
    )
    // D_KA has 950 of its 1900: every role keeps half its quota, the ratios hold
    assert.deepStrictEqual(
      mixCounts({ init: 5000, plan: 4000, update: 950, answer: 900 }, "paper"),
      { init: 950, plan: 950, update: 950, answer: 150 }
    )
    // a role without any pair leaves the mix instead of emptying it
    assert.deepStrictEqual(
      mixCounts({ init: 100, plan: 100, update: 100, answer: 0 }, "paper"),
      { init: 100, plan: 100, update: 100, answer: 0 }
    )
    assert.deepStrictEqual(mixCounts({ init: 10, plan: 10, update: 10, answer: 10 }, { init: 4, answer: 2 }), {
      init: 4,
      plan: 0,
      update: 0,
      answer: 2
    })
  })

  it("the mix draws the same pairs for the same seed, others for another", () => {
    const a = keptPairs("init", 100, 10, 66)
    assert.deepStrictEqual([...a], [...keptPairs("init", 100, 10, 66)])
    assert.strictEqual(a.size, 10)
    assert.notDeepEqual([...a].sort(), [...keptPairs("init", 100, 10, 67)].sort())
  })

  it("a group judge's reply is decoded with its schema; an id outside the group or bad JSON reads as nothing", () => {
    assert.deepStrictEqual(parseRankReply(`{"best_id": 2, "worst_id": 0}`, [0, 1, 2]), { bestId: 2, worstId: 0 })
    assert.deepStrictEqual(parseRankReply("```json\n{\"best_id\": \"1\", \"worst_id\": \"1\"}\n```", [0, 1]), {
      bestId: 1,
      worstId: 1
    })
    assert.isUndefined(parseRankReply(`{"best_id": 7, "worst_id": 0}`, [0, 1, 2]))
    assert.isUndefined(parseRankReply(`{"best": 1}`, [0, 1]))
    assert.isUndefined(parseRankReply("the second one", [0, 1]))
  })

  it.scoped("pairs are written as valid JSONL, in question order, mixed, and split by role on request", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "deepnote-align-out-" })
      const all = results(40)
      const path = Path.join(dir, "pairs.jsonl")
      const written = yield* writePairs(() => Stream.fromIterable(all), {
        path,
        splitRoles: false,
        mix: "paper",
        seed: 66,
        roles: ["init", "plan", "update", "answer"]
      })
      assert.deepStrictEqual(written.available, { init: 40, plan: 40, update: 20, answer: 8 })
      // D_KA is the scarcest against its quota (20 of 1,900): every quota × 20/1,900
      assert.deepStrictEqual(written.kept, { init: 20, plan: 20, update: 20, answer: 3 })
      const lines = (yield* fs.readFileString(path)).trim().split("\n")
      const decode = Schema.decodeUnknownSync(Schema.parseJson(PreferencePair))
      const records = lines.map((l) => decode(l))
      assert.strictEqual(records.length, written.files[0]!.pairs)
      const total = written.kept.init + written.kept.plan + written.kept.update + written.kept.answer
      assert.strictEqual(records.length, total)
      const order = records.map((r) => Number(r.meta.question_id.slice(1)))
      assert.deepStrictEqual(order, [...order].sort((a, b) => a - b), "question order")

      const split = yield* writePairs(() => Stream.fromIterable(all), {
        path,
        splitRoles: true,
        mix: "all",
        seed: 66,
        roles: ["init", "update"]
      })
      assert.deepStrictEqual(split.files.map((f) => [Path.basename(f.path), f.pairs]), [
        ["pairs.init.jsonl", 40],
        ["pairs.update.jsonl", 20]
      ])
      const updates = (yield* fs.readFileString(rolePath(path, "update"))).trim().split("\n").map((l) => decode(l))
      assert.isTrue(updates.every((r) => r.role === "update"))
    }).pipe(Effect.provide(NodeContext.layer)))
})
