import { assert, describe, it } from "@effect/vitest"
import { reciprocalRankFusion } from "../src/index.js"

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
