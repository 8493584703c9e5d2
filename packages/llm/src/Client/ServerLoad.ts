/** What a vLLM server's `/metrics` says about its load (summed over label sets: engines, models). */
export interface ServerLoad {
  /** `vllm:num_requests_running`: sequences in the batch. */
  readonly running: number
  /** `vllm:num_requests_waiting`: requests queued on the server. */
  readonly waiting: number
  /** `vllm:kv_cache_usage_perc` (older vLLM: `vllm:gpu_cache_usage_perc`), 0–1; undefined when not exported. */
  readonly kvUsage: number | undefined
  /** `vllm:num_preemptions_total` (a counter); undefined when not exported. */
  readonly preemptions: number | undefined
}

const names = {
  running: ["vllm:num_requests_running"],
  waiting: ["vllm:num_requests_waiting"],
  kvUsage: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
  preemptions: ["vllm:num_preemptions_total", "vllm:num_preemptions"]
} as const

/**
 * Reads the few series the concurrency controller needs from Prometheus text, without a general parser: one pass
 * over the lines, samples of the same name summed (a data-parallel server labels one per engine); the KV-cache usage
 * is the largest of its samples. Undefined when neither running nor waiting is there (not a vLLM server).
 */
export const parseServerLoad = (text: string): ServerLoad | undefined => {
  const sums: Record<keyof typeof names, number | undefined> = {
    running: undefined,
    waiting: undefined,
    kvUsage: undefined,
    preemptions: undefined
  }
  for (const line of text.split("\n")) {
    if (line.length === 0 || line.charCodeAt(0) === 35 /* # */) continue
    const nameEnd = line.search(/[{ ]/)
    if (nameEnd <= 0) continue
    const name = line.slice(0, nameEnd)
    for (const key of Object.keys(names) as Array<keyof typeof names>) {
      if (!(names[key] as ReadonlyArray<string>).includes(name)) continue
      const value = Number(line.slice(line.lastIndexOf(" ") + 1))
      if (!Number.isFinite(value)) continue
      const before = sums[key]
      sums[key] = before === undefined ? value : key === "kvUsage" ? Math.max(before, value) : before + value
    }
  }
  if (sums.running === undefined && sums.waiting === undefined) return undefined
  return {
    running: sums.running ?? 0,
    waiting: sums.waiting ?? 0,
    kvUsage: sums.kvUsage,
    preemptions: sums.preemptions
  }
}
