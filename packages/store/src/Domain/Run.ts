import { AlignSpec, RunConfig } from "@deepnote-rag/core"
import { Schema } from "effect"

/** Lifecycle of a run: `created` → `running` → `completed` | `failed` | `interrupted` (and back to `running` on resume). */
export const RunStatus = Schema.Literal("created", "running", "interrupted", "failed", "completed")
export type RunStatus = typeof RunStatus.Type

/**
 * How a run is executed: `local` — by one process (`deepnote run`, `resume`) under the run's lease; `queue` — each
 * question is a job that any `deepnote worker` (or a server's workers) takes.
 */
export const RunExecution = Schema.Literal("local", "queue")
export type RunExecution = typeof RunExecution.Type

/** A model server the run talked to. */
export const ServerInfo = Schema.Struct({
  endpoint: Schema.String,
  kind: Schema.optional(Schema.String),
  version: Schema.optional(Schema.String),
  models: Schema.optional(Schema.Array(Schema.String)),
  /** The context length the server reported for its model (vLLM's `max_model_len`). */
  maxModelLen: Schema.optional(Schema.Int)
})
export type ServerInfo = typeof ServerInfo.Type

/** The dataset file a run reads, with the hash of its bytes (so a changed file is noticed on resume). */
export const DatasetRef = Schema.Struct({
  path: Schema.String,
  hash: Schema.String,
  format: Schema.optional(Schema.String),
  count: Schema.optional(Schema.Int)
})
export type DatasetRef = typeof DatasetRef.Type

/** Which cell of which sweep grid a run is. */
export const SweepCell = Schema.Struct({
  sweepId: Schema.String,
  index: Schema.Int,
  cell: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type SweepCell = typeof SweepCell.Type

/** Everything needed to reproduce a run, and to refuse a resume that would mix incompatible settings. */
export class RunManifest extends Schema.Class<RunManifest>("RunManifest")({
  config: RunConfig,
  configHash: Schema.String,
  promptSetHash: Schema.optional(Schema.String),
  /** Model id per role (`init`, `plan`, …) or `*` for all: the ids the servers were asked for (discovered or configured). */
  models: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
  servers: Schema.optionalWith(Schema.Array(ServerInfo), { default: () => [] }),
  indexId: Schema.optional(Schema.String),
  /**
   * The content hash of the collection the run retrieves from (`Collections.fingerprint`): a worker whose copy
   * differs refuses the run's questions, so one run is never answered from two different indexes.
   */
  collectionFingerprint: Schema.optional(Schema.String),
  /** Dense and hybrid runs: the embeddings model of the collection's vectors and their length. */
  embeddings: Schema.optional(Schema.Struct({ model: Schema.String, dimensions: Schema.Int })),
  codeVersion: Schema.String,
  dataset: DatasetRef,
  sweep: Schema.optional(SweepCell),
  label: Schema.optional(Schema.String),
  /** Questions in flight at once when the run was started; a resume uses it unless told otherwise. */
  concurrency: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** Why `concurrency` is what it is (`--concurrency`, the LLM endpoints' capacity, the extractive default). */
  concurrencyReason: Schema.optional(Schema.String),
  /**
   * An align run (`deepnote align-data`): its questions make DPO preference pairs by this recipe instead of being
   * answered; each item's result is an `AlignItemResult`.
   */
  align: Schema.optional(AlignSpec)
}) {}

/** Items of a run by status. */
export const ItemCounts = Schema.Struct({
  total: Schema.Int,
  pending: Schema.Int,
  running: Schema.Int,
  done: Schema.Int,
  failed: Schema.Int
})
export type ItemCounts = typeof ItemCounts.Type

/** A run as stored. Timestamps are ISO strings when encoded. */
export class Run extends Schema.Class<Run>("Run")({
  id: Schema.String,
  sweepId: Schema.optional(Schema.String),
  status: RunStatus,
  manifest: RunManifest,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  startedAt: Schema.optional(Schema.Date),
  finishedAt: Schema.optional(Schema.Date),
  /** Why the run failed or was interrupted. */
  message: Schema.optional(Schema.String),
  counts: ItemCounts,
  execution: Schema.optionalWith(RunExecution, { default: () => "local" as const }),
  /** Queue runs: the generation of their current jobs (bumped by each re-enqueue). */
  queueGeneration: Schema.optionalWith(Schema.Int, { default: () => 0 })
}) {}
