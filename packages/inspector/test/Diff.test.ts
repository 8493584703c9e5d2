import { assert, describe, it } from "@effect/vitest"
import { wordDiff } from "../src/Diff.js"
import { parseRoute } from "../src/Router.js"

describe("wordDiff", () => {
  it("keeps shared words and marks the added and removed ones; the parts give both texts back", () => {
    const before = "Paris is the capital of France."
    const after = "Paris is the capital and largest city of France."
    const parts = wordDiff(before, after)
    assert.deepStrictEqual(parts, [
      { kind: "same", text: "Paris is the capital " },
      { kind: "add", text: "and largest city " },
      { kind: "same", text: "of France." }
    ])
    assert.strictEqual(parts.filter((p) => p.kind !== "add").map((p) => p.text).join(""), before)
    assert.strictEqual(parts.filter((p) => p.kind !== "del").map((p) => p.text).join(""), after)
  })

  it("an empty best note: the whole note is added", () => {
    assert.deepStrictEqual(wordDiff("", "a b"), [{ kind: "add", text: "a b" }])
  })
})

describe("parseRoute", () => {
  it("reads every page's hash, ids decoded", () => {
    assert.deepStrictEqual(parseRoute(""), { page: "runs", pageSize: 100 })
    assert.deepStrictEqual(parseRoute("#/runs?limit=2"), { page: "runs", pageSize: 2 })
    // out of range or not a whole number: the default
    for (const limit of ["0", "1001", "1.5", "x"]) {
      assert.deepStrictEqual(parseRoute(`#/runs?limit=${limit}`), { page: "runs", pageSize: 100 })
    }
    assert.deepStrictEqual(parseRoute("#/runs/r%2F1"), { page: "run", runId: "r/1" })
    assert.deepStrictEqual(parseRoute("#/runs/r1/items/q%201"), { page: "question", runId: "r1", itemId: "q 1" })
    assert.deepStrictEqual(parseRoute("#/compare?base=a&candidate=b"), { page: "compare", base: "a", candidate: "b" })
    assert.deepStrictEqual(parseRoute("#/compare/items/q1?base=a&candidate=b"), {
      page: "pair",
      base: "a",
      candidate: "b",
      itemId: "q1"
    })
    assert.deepStrictEqual(parseRoute("#/sweeps/s1"), { page: "sweep", sweepId: "s1" })
    assert.strictEqual(parseRoute("#/nowhere").page, "unknown")
  })
})
