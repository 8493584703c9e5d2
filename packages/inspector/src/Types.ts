/** The JSON the pages read from the HTTP API (dates as ISO strings). Only the fields the pages use are listed. */

export interface RunCounts {
  readonly total: number
  readonly pending: number
  readonly running: number
  readonly done: number
  readonly failed: number
}

export interface RunView {
  readonly id: string
  readonly status: string
  readonly state: string
  readonly active: boolean
  readonly collection: string
  readonly label?: string
  readonly message?: string
  readonly counts: RunCounts
  readonly config: Readonly<Record<string, unknown>> & { readonly profile: string; readonly engine: string }
  readonly dataset: { readonly format?: string; readonly count?: number; readonly hash: string }
  readonly createdAt: string
  readonly updatedAt: string
  readonly startedAt?: string
  readonly finishedAt?: string
  readonly sweepId?: string
  readonly sweepCell?: Readonly<Record<string, unknown>>
  /** Reproduction details when the server shows them (models, endpoints, prompt-set and collection hashes). */
  readonly manifest?: RunManifest
}

export interface RunManifest {
  readonly models: Readonly<Record<string, string>>
  readonly servers: ReadonlyArray<{
    readonly endpoint: string
    readonly kind?: string
    readonly version?: string
    readonly models?: ReadonlyArray<string>
    readonly maxModelLen?: number
  }>
  readonly promptSetHash?: string
  readonly configHash: string
  readonly collectionFingerprint?: string
  readonly embeddings?: { readonly model: string; readonly dimensions: number }
  readonly codeVersion: string
}

export interface Passage {
  readonly id: string
  readonly title: string
  readonly text: string
  readonly source: string
  readonly score: number
}

export interface Verdict {
  readonly better: boolean
  readonly parsed: string
  readonly raw?: string
}

export interface PipelineResult {
  readonly questionId: string
  readonly question: string
  readonly profile: string
  readonly answer: { readonly text: string }
  readonly bestNote?: { readonly text: string }
  readonly stopReason: string
  readonly trace: {
    readonly queries: ReadonlyArray<{ readonly step: number; readonly query: string }>
    readonly passages: ReadonlyArray<{ readonly step: number; readonly passage: Passage }>
    readonly notes: ReadonlyArray<{
      readonly step: number
      readonly note: { readonly text: string }
      readonly verdict?: Verdict
      readonly best: boolean
    }>
  }
  readonly counters: {
    readonly llm: { readonly total: number }
    readonly retrievals: number
    readonly steps: number
    readonly failures: number
    readonly uniquePassages: number
  }
  readonly elapsedMs: number
}

export interface ItemView {
  readonly itemId: string
  readonly seq: number
  readonly status: "pending" | "running" | "done" | "failed"
  readonly question: string
  readonly gold: ReadonlyArray<string>
  readonly answer?: string
  readonly result?: PipelineResult
  readonly error?: { readonly tag: string; readonly message: string }
  /** Scores 0–1 as the comparison counts them (with `scores=true`). */
  readonly metrics?: Readonly<Record<string, number>>
}

/** `GET /v1/runs/{id}/items/{itemId}`. */
export interface ItemDetail extends ItemView {
  readonly metrics: Readonly<Record<string, number>>
  readonly goldTitles?: ReadonlyArray<string>
  /** The ids of the trace's passages that are gold passages of the question. */
  readonly goldPassageIds?: ReadonlyArray<string>
  /** The OpenTelemetry trace id of the question's execution, when stored. */
  readonly traceId?: string
  /** The command that shows the trace, when the home holds a trace file of the run. */
  readonly traceCommand?: string
}

export interface MetricSummary {
  readonly name: string
  readonly description: string
  readonly n: number
  readonly mean: number
  readonly ci?: { readonly low: number; readonly high: number; readonly level: number }
}

export interface Report {
  readonly partial: boolean
  readonly counts: { readonly total: number; readonly finished: number; readonly done: number; readonly failed: number }
  readonly metrics: ReadonlyArray<MetricSummary>
  readonly cost: {
    readonly llmCalls: number
    readonly retrievals: number
    readonly steps: number
    readonly wallMs: number
    readonly promptTokens?: number
    readonly completionTokens?: number
  }
  readonly stopReasons: Readonly<Record<string, number>>
  readonly recall: { readonly n: number; readonly init?: number; readonly final?: number }
}

export interface RunResults {
  readonly run: RunView
  readonly items: ReadonlyArray<ItemView>
  readonly nextAfter?: number
  readonly report?: Report
}

export interface SweepView {
  readonly id: string
  readonly label?: string
  readonly grid: unknown
  readonly createdAt: string
  readonly cells: ReadonlyArray<{
    readonly cell: Readonly<Record<string, unknown>>
    readonly runId?: string
    readonly run?: RunView
  }>
}

export interface Side {
  readonly seq: number
  readonly status: string
  readonly answer?: string
  readonly metrics: Readonly<Record<string, number>>
}

export interface Comparison {
  readonly base: RunView
  readonly candidate: RunView
  readonly paired: number
  readonly onlyBase: number
  readonly onlyCandidate: number
  readonly metrics: ReadonlyArray<{
    readonly metric: string
    readonly base: number
    readonly candidate: number
    readonly difference: number
    readonly low: number
    readonly high: number
  }>
  readonly items: ReadonlyArray<{
    readonly itemId: string
    readonly question: string
    readonly base: Side
    readonly candidate: Side
    readonly change: "improved" | "regressed" | "same"
  }>
}
