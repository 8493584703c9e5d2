/**
 * The best `limit` of the first `count` of `rowids` (all of them by default) by `sums` (higher first, equal sums by
 * lower rowid): a bounded heap whose root is the worst row kept, then sorted. Comparing n rows against the root costs
 * less than sorting them all.
 */
export const bestRows = (
  rowids: ArrayLike<number>,
  sums: Float64Array,
  limit: number,
  count: number = rowids.length
): Array<number> => {
  const worse = (a: number, b: number) => sums[a]! < sums[b]! || (sums[a] === sums[b] && a > b)
  const heap: Array<number> = []
  const siftDown = (from: number) => {
    let i = from
    while (true) {
      const left = 2 * i + 1
      const right = left + 1
      let worst = i
      if (left < heap.length && worse(heap[left]!, heap[worst]!)) worst = left
      if (right < heap.length && worse(heap[right]!, heap[worst]!)) worst = right
      if (worst === i) return
      const swap = heap[i]!
      heap[i] = heap[worst]!
      heap[worst] = swap
      i = worst
    }
  }
  for (let r = 0; r < count; r++) {
    const rowid = rowids[r]!
    if (heap.length < limit) {
      heap.push(rowid)
      let i = heap.length - 1
      while (i > 0) {
        const parent = (i - 1) >> 1
        if (!worse(heap[i]!, heap[parent]!)) break
        const swap = heap[i]!
        heap[i] = heap[parent]!
        heap[parent] = swap
        i = parent
      }
    } else if (limit > 0 && worse(heap[0]!, rowid)) {
      heap[0] = rowid
      siftDown(0)
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
}
