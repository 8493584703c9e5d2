/**
 * One metric's per-question scores in arrival order, packed in a growing `Float64Array` (8 bytes a question), so a
 * report over a large run keeps its bootstrap input compact instead of every question's result.
 */
export class ScoreColumn {
  private values = new Float64Array(256)
  private size = 0
  private total = 0

  /** Appends a score (and adds it to the running sum, in the same order as a left-to-right `reduce`). */
  push(score: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.size++] = score
    this.total += score
  }

  get length(): number {
    return this.size
  }

  /** The mean of the scores so far; 0 when there are none. */
  get mean(): number {
    return this.size === 0 ? 0 : this.total / this.size
  }

  /** The scores so far (a view, not a copy). */
  get scores(): Float64Array {
    return this.values.subarray(0, this.size)
  }
}

/** A running mean (the sum in arrival order, so it equals `mean` over the same numbers exactly). */
export class RunningMean {
  private total = 0
  private n = 0

  add(x: number): void {
    this.total += x
    this.n++
  }

  get count(): number {
    return this.n
  }

  get mean(): number {
    return this.n === 0 ? 0 : this.total / this.n
  }
}
