import { Schema } from "effect"
import { Run, RunExecution, RunManifest, RunStatus } from "../Domain/Run.js"
import { DbInt, orUndefined } from "./sql.js"

/** A run as the `runs` table holds it, with its item counts. */
export const RunRow = Schema.Struct({
  id: Schema.String,
  sweep_id: Schema.NullOr(Schema.String),
  status: RunStatus,
  manifest: Schema.parseJson(RunManifest),
  message: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date),
  execution: RunExecution,
  queue_generation: DbInt,
  total: DbInt,
  pending: DbInt,
  running: DbInt,
  done: DbInt,
  failed: DbInt
})

/** The `Run` a row stands for. */
export const toRun = (r: typeof RunRow.Type): Run =>
  new Run({
    id: r.id,
    sweepId: orUndefined(r.sweep_id),
    status: r.status,
    manifest: r.manifest,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: orUndefined(r.started_at),
    finishedAt: orUndefined(r.finished_at),
    message: orUndefined(r.message),
    counts: { total: r.total, pending: r.pending, running: r.running, done: r.done, failed: r.failed },
    execution: r.execution,
    queueGeneration: r.queue_generation
  })

/** What a run listing asks for (`listRuns`, `getRun`). */
export const RunFilter = Schema.Struct({
  runId: Schema.optional(Schema.String),
  status: Schema.optional(RunStatus),
  sweepId: Schema.optional(Schema.String),
  /** Only runs over the dataset with this hash (the manifest's `dataset.hash`). */
  datasetHash: Schema.optional(Schema.String),
  /** Only runs older than this run (newest-first order: created, then id). */
  before: Schema.optional(Schema.String),
  limit: Schema.Int
})

/** A run's row as created. */
export const NewRun = Schema.Struct({
  id: Schema.String,
  sweep_id: Schema.NullOr(Schema.String),
  status: RunStatus,
  manifest: Schema.parseJson(RunManifest),
  execution: RunExecution,
  created_at: Schema.String,
  updated_at: Schema.String
})

/** A status change of a run. */
export const StatusChange = Schema.Struct({
  runId: Schema.String,
  status: RunStatus,
  message: Schema.NullOr(Schema.String),
  now: Schema.String,
  /** `running` stamps `started_at` once; final statuses stamp `finished_at`, `running` clears it. */
  finished: Schema.Literal("stamp", "clear", "keep")
})

export const Id = Schema.Struct({ id: Schema.String })
