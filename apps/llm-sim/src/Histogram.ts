/** A Prometheus histogram (cumulative buckets in seconds). */
export class Histogram {
  readonly counts: Array<number>
  sum = 0
  count = 0
  constructor(readonly name: string, readonly help: string, readonly buckets: ReadonlyArray<number>) {
    this.counts = buckets.map(() => 0)
  }
  observe(value: number) {
    this.sum += value
    this.count++
    for (let i = 0; i < this.buckets.length; i++) {
      if (value <= this.buckets[i]!) this.counts[i]!++
    }
  }
  render(labels: string): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`]
    this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket{${labels},le="${b}"} ${this.counts[i]}`))
    lines.push(
      `${this.name}_bucket{${labels},le="+Inf"} ${this.count}`,
      `${this.name}_sum{${labels}} ${this.sum}`,
      `${this.name}_count{${labels}} ${this.count}`
    )
    return lines.join("\n")
  }
}
