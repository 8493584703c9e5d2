import type { PipelineResult, Question, TaskType } from "@deepnote-rag/core"
import type { QaPair } from "../Metrics/Asqa.js"
import type { BootstrapOptions } from "../Metrics/Bootstrap.js"
import type { MetricName } from "../Metrics/Metric.js"

/** What happened to one question. `pending` items count towards the total only. */
export type Outcome =
  | { readonly _tag: "done"; readonly result: PipelineResult }
  | { readonly _tag: "failed"; readonly error: { readonly tag: string; readonly message: string } }
  | { readonly _tag: "pending" }

export interface ReportItem {
  readonly question: Question
  readonly outcome: Outcome
  /** Token usage of the question (e.g. from `Journal.totals`). */
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number } | undefined
  /** ASQA qa_pairs (from `LoadedDataset.qaPairs`). */
  readonly qaPairs?: ReadonlyArray<QaPair> | undefined
}

export interface ReportOptions {
  readonly title?: string | undefined
  /** Default: the paper's metrics for the tasks present (multihop: acc, em, f1; yesno: strategyqa-acc; longform: str-em, str-hit). */
  readonly metrics?: ReadonlyArray<MetricName> | undefined
  /** Task of questions that carry none. Default `multihop`. */
  readonly task?: TaskType | undefined
  /** Items in the run, when `items` holds only some of them. Default `items.length`. */
  readonly total?: number | undefined
  readonly bootstrap?: BootstrapOptions | undefined
  /** Include per-question scores. */
  readonly perItem?: boolean | undefined
  /** Score failed questions as 0 instead of leaving them out of the metrics. */
  readonly scoreFailuresAsZero?: boolean | undefined
  /** The run's passage budget (`passageBudget` of its config), stated with the recall; absent: none. */
  readonly budget?: number | undefined
}
