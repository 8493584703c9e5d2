import { Histogram } from "./Histogram.js"

/** One scheduler step, for occupancy windows. */
export interface StepRecord {
  readonly startMs: number
  readonly durationMs: number
  readonly running: number
  readonly waiting: number
}

/** Everything `/metrics` and `/sim/stats` report. Mutated by the scheduler and the handlers. */
export class SimMetrics {
  running = 0
  waiting = 0
  /** Share of KV blocks in use (0–1), set by the scheduler. */
  kvUsage = 0
  preemptions = 0
  /** Requests the simulated other client (`backgroundLoad`) sent. */
  backgroundRequests = 0
  /** `/v1/embeddings`, rerank and score requests received. */
  poolingRequests = 0
  promptTokens = 0
  generationTokens = 0
  prefixCacheQueries = 0
  prefixCacheHits = 0
  success = 0
  requests = 0
  rejected = 0
  cancelled = 0
  faults: Record<string, number> = {}
  maxRunning = 0
  maxInSystem = 0
  steps = 0
  busyMs = 0
  runningSeqMs = 0
  lastTraceparent: string | undefined = undefined
  lastRole: string | undefined = undefined
  readonly byRole: Record<string, number> = {}
  readonly stepLog: Array<StepRecord> = []
  readonly ttft = new Histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", [
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1,
    2.5,
    5,
    7.5,
    10,
    20,
    40,
    80
  ])
  readonly itl = new Histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", [
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.75,
    1,
    2.5
  ])
  readonly e2e = new Histogram(
    "vllm:e2e_request_latency_seconds",
    "Histogram of end to end request latency in seconds.",
    [0.01, 0.05, 0.1, 0.3, 0.5, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120]
  )

  constructor(readonly maxNumSeqs: number) {}

  recordStep(step: StepRecord) {
    this.steps++
    this.busyMs += step.durationMs
    this.runningSeqMs += step.running * step.durationMs
    if (this.stepLog.length < 2_000_000) this.stepLog.push(step)
  }

  /** Mean running / max_num_seqs over the steps that started in [fromMs, toMs), weighted by step time. */
  occupancy(fromMs = 0, toMs = Number.POSITIVE_INFINITY) {
    let busy = 0
    let seq = 0
    for (const s of this.stepLog) {
      if (s.startMs < fromMs || s.startMs >= toMs) continue
      busy += s.durationMs
      seq += s.running * s.durationMs
    }
    return { busyMs: busy, occupancy: busy === 0 ? 0 : seq / busy / this.maxNumSeqs }
  }

  stats() {
    return {
      running: this.running,
      waiting: this.waiting,
      requests: this.requests,
      success: this.success,
      rejected: this.rejected,
      cancelled: this.cancelled,
      preemptions: this.preemptions,
      kvUsage: this.kvUsage,
      backgroundRequests: this.backgroundRequests,
      poolingRequests: this.poolingRequests,
      faults: { ...this.faults },
      promptTokens: this.promptTokens,
      generationTokens: this.generationTokens,
      prefixCacheQueries: this.prefixCacheQueries,
      prefixCacheHits: this.prefixCacheHits,
      maxRunning: this.maxRunning,
      maxInSystem: this.maxInSystem,
      steps: this.steps,
      byRole: { ...this.byRole },
      lastTraceparent: this.lastTraceparent,
      lastRole: this.lastRole,
      ...this.occupancy()
    }
  }

  render(model: string): string {
    const l = `model_name="${model}"`
    const metric = (type: "gauge" | "counter") => (name: string, help: string, value: number) =>
      `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name}{${l}} ${value}`
    const gauge = metric("gauge")
    const counter = metric("counter")
    return [
      gauge("vllm:num_requests_running", "Number of requests in model execution batches.", this.running),
      gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", this.waiting),
      gauge(
        "vllm:kv_cache_usage_perc",
        "KV-cache usage. 1 means 100 percent usage.",
        this.kvUsage
      ),
      counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", this.preemptions),
      counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", this.promptTokens),
      counter("vllm:generation_tokens_total", "Number of generation tokens processed.", this.generationTokens),
      counter(
        "vllm:prefix_cache_queries_total",
        "Prefix cache queries, in terms of number of queried tokens.",
        this.prefixCacheQueries
      ),
      counter(
        "vllm:prefix_cache_hits_total",
        "Prefix cache hits, in terms of number of cached tokens.",
        this.prefixCacheHits
      ),
      counter("vllm:request_success_total", "Count of successfully processed requests.", this.success),
      this.ttft.render(l),
      this.itl.render(l),
      this.e2e.render(l),
      gauge("sim:max_num_requests_running", "Most requests ever running at once (simulator).", this.maxRunning),
      gauge(
        "sim:max_num_requests_in_system",
        "Most requests ever running or waiting at once (simulator).",
        this.maxInSystem
      ),
      counter("sim:requests_total", "Generation requests received (simulator).", this.requests),
      counter(
        "sim:background_requests_total",
        "Requests sent by the simulated background client (simulator).",
        this.backgroundRequests
      ),
      counter(
        "sim:pooling_requests_total",
        "Embedding, rerank and score requests received (simulator).",
        this.poolingRequests
      ),
      counter("sim:busy_seconds_total", "Time spent in scheduler steps (simulator).", this.busyMs / 1000),
      counter(
        "sim:running_sequence_seconds_total",
        "Sum over steps of running sequences × step time (simulator).",
        this.runningSeqMs / 1000
      ),
      ...Object.entries(this.faults).map(([kind, n]) => `sim:faults_total{${l},kind="${kind}"} ${n}`)
    ].join("\n") + "\n"
  }
}
