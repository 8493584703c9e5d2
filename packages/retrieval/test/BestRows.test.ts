import { assert, describe, it } from "@effect/vitest"
import { bestRows } from "../src/Index/BestRows.js"

/** The order FTS5's `ORDER BY score LIMIT n` gives (higher sum first, equal sums by lower rowid), by a full sort. */
const sorted = (rowids: ReadonlyArray<number>, sums: Float64Array, limit: number) =>
  [...rowids].sort((a, b) => sums[b]! - sums[a]! || a - b).slice(0, limit)

describe("bestRows", () => {
  it("gives the first `limit` rows of the full sort, ties by rowid, for any limit", () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let round = 0; round < 200; round++) {
      const size = 1 + Math.floor(random() * 300)
      const sums = new Float64Array(size)
      // few distinct values, so many ties
      for (let i = 0; i < size; i++) sums[i] = Math.floor(random() * 8) / 4
      const rowids = Array.from({ length: size }, (_, i) => i).filter(() => random() < 0.7)
      // the first `count` of a longer scratch list, as a search passes its touched rows
      const count = Math.floor(random() * (rowids.length + 1))
      const scratch = Int32Array.from([...rowids, ...rowids.map((r) => (r + 1) % size)])
      for (const limit of [0, 1, 3, 50, size + 5]) {
        assert.deepStrictEqual(bestRows(rowids, sums, limit), sorted(rowids, sums, limit), `round ${round}, ${limit}`)
        assert.deepStrictEqual(
          bestRows(scratch, sums, limit, count),
          sorted(rowids.slice(0, count), sums, limit),
          `round ${round}, ${limit}, first ${count}`
        )
      }
    }
  })
})
