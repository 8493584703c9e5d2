import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { fuseQueries, leadsFirst, reciprocalRankFusion } from "../src/index.js"

const item = (id: string) => ({ id, score: 0 })

describe("reciprocalRankFusion", () => {
  it("sums 1/(60 + rank) over lists and merges by id", () => {
    const fused = reciprocalRankFusion([[item("a"), item("b"), item("c")], [item("c"), item("a")], [item("d")]])
    assert.deepStrictEqual(fused.map((x) => x.id), ["a", "c", "d", "b"])
    assert.closeTo(fused[0]!.score, 1 / 61 + 1 / 62, 1e-12)
    assert.closeTo(fused[1]!.score, 1 / 63 + 1 / 61, 1e-12)
    assert.closeTo(fused[2]!.score, 1 / 61, 1e-12)
    assert.closeTo(fused[3]!.score, 1 / 62, 1e-12)
  })

  it("keeps first-seen order on ties", () => {
    const fused = reciprocalRankFusion([[item("x")], [item("y")]])
    assert.deepStrictEqual(fused.map((x) => x.id), ["x", "y"])
  })
})

describe("fuseQueries", () => {
  it.effect("keeps every query's best candidate even when the question's passages win plain RRF", () =>
    Effect.sync(() => {
      // both lists rank "q0-a" and "q0-b" high (they match the question, which every query carries); each planned
      // query found one passage of its own, ranked first in its list only
      const lists = [
        [item("bridge-1"), item("q0-a"), item("q0-b")],
        [item("bridge-2"), item("q0-a"), item("q0-b")]
      ]
      const plain = reciprocalRankFusion(lists).map((x) => x.id)
      assert.deepStrictEqual(plain.slice(0, 2), ["q0-a", "q0-b"])
      const fused = fuseQueries(lists).map((x) => x.id)
      assert.deepStrictEqual(fused.slice(0, 2), ["bridge-1", "bridge-2"])
      assert.deepStrictEqual(fused.slice(2), ["q0-a", "q0-b"])
      assert.deepStrictEqual(fuseQueries([[item("a")]]).map((x) => x.id), ["a"])
    }))
})

describe("leadsFirst", () => {
  it("puts each lead's first ahead of the fused list, once each, in lead order; the leads' other items are not used", () => {
    const fused = [item("q0-a"), item("bridge-2"), item("q0-b")]
    const leads = [[item("bridge-1"), item("lead-only")], [item("bridge-2")], [], [item("bridge-1")]]
    assert.deepStrictEqual(leadsFirst(leads, fused).map((x) => x.id), ["bridge-1", "bridge-2", "q0-a", "q0-b"])
    assert.deepStrictEqual(leadsFirst([], fused).map((x) => x.id), ["q0-a", "bridge-2", "q0-b"])
  })
})
