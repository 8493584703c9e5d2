import { PipelineResult, RunConfig } from "@deepnote-rag/core"
import { Report } from "@deepnote-rag/eval"
import { Schema } from "effect"
import { ConfigPatch } from "../ConfigPatch.js"
import { CollectionName, IntParam } from "./Names.js"
import { PageParams } from "./Paging.js"

export const DatasetFormatName = Schema.Literal("auto", "ircot", "hotpotqa", "musique", "2wiki", "cmrc2018", "plain")

/**
 * `POST /v1/runs` as JSON: the questions either inline (`jsonl`, one JSON record per line) or from a file the operator
 * put under `<home>/datasets/` (`datasetPath`, relative to that directory).
 */
export const CreateRunRequest = Schema.Struct({
  collection: Schema.optional(CollectionName),
  datasetPath: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  jsonl: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  format: Schema.optional(DatasetFormatName),
  limit: Schema.optional(Schema.Int.pipe(Schema.positive())),
  skipBadLines: Schema.optional(Schema.Boolean),
  label: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  /** Questions in flight at once for this run (capped by the server). */
  concurrency: Schema.optional(Schema.Int.pipe(Schema.between(1, 256))),
  config: Schema.optional(ConfigPatch)
}).annotations({
  identifier: "CreateRunRequest",
  // a misspelled field (`colection`, `concurency`) must not silently take the default
  parseOptions: { onExcessProperty: "error" }
})
export type CreateRunRequest = typeof CreateRunRequest.Type

/** The same knobs as query parameters, for a raw JSON Lines upload (`Content-Type: application/x-ndjson`). */
export const CreateRunParams = Schema.Struct({
  collection: Schema.optional(Schema.String),
  format: Schema.optional(Schema.String),
  limit: Schema.optional(Schema.String),
  skipBadLines: Schema.optional(Schema.String),
  label: Schema.optional(Schema.String),
  concurrency: Schema.optional(Schema.String),
  /** A JSON object of RunConfig knobs. */
  config: Schema.optional(Schema.String)
})

export const RunCounts = Schema.Struct({
  total: Schema.Int,
  pending: Schema.Int,
  running: Schema.Int,
  done: Schema.Int,
  failed: Schema.Int
})

/** An LLM server a run used, as its startup check found it. */
export const ServerView = Schema.Struct({
  endpoint: Schema.String,
  kind: Schema.optional(Schema.String),
  version: Schema.optional(Schema.String),
  models: Schema.optional(Schema.Array(Schema.String)),
  /** The context length the server reported (vLLM's `max_model_len`). */
  maxModelLen: Schema.optional(Schema.Int)
})

/** What reproduces a run: the models per role, the servers, and the hashes of its prompts, config and collection. */
export const RunManifestView = Schema.Struct({
  /** Model id per role (`init`, `plan`, …), or `*` for every role; empty for the extractive engine. */
  models: Schema.Record({ key: Schema.String, value: Schema.String }),
  servers: Schema.Array(ServerView),
  /** The engine's prompts (LLM) or its name and version (extractive). */
  promptSetHash: Schema.optional(Schema.String),
  configHash: Schema.String,
  /** The content hash of the collection the run retrieves from. */
  collectionFingerprint: Schema.optional(Schema.String),
  /** Dense and hybrid runs: the embeddings model of the collection's vectors and their length. */
  embeddings: Schema.optional(Schema.Struct({ model: Schema.String, dimensions: Schema.Int })),
  codeVersion: Schema.String
})
export type RunManifestView = typeof RunManifestView.Type

/** A run as the API shows it. */
export class RunView extends Schema.Class<RunView>("RunView")({
  id: Schema.String,
  status: Schema.Literal("created", "running", "interrupted", "failed", "completed"),
  /**
   * What the run is doing: `queued` (its questions wait for workers), `running`, `completed`,
   * `completed_with_failures` (finished with failed questions), `interrupted` (cancelled; resumable), `failed`.
   */
  state: Schema.Literal(
    "created",
    "queued",
    "running",
    "stale",
    "completed",
    "completed_with_failures",
    "interrupted",
    "failed"
  ),
  /** True while it is queued or executing (on any replica's or any machine's workers). */
  active: Schema.Boolean,
  collection: Schema.String,
  label: Schema.optional(Schema.String),
  /** The sweep the run is a cell of (`deepnote run --sweep`). */
  sweepId: Schema.optional(Schema.String),
  /** Its knob values in that sweep (e.g. `{ "maxStep": 2 }`). */
  sweepCell: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  message: Schema.optional(Schema.String),
  counts: RunCounts,
  config: RunConfig,
  dataset: Schema.Struct({
    format: Schema.optional(Schema.String),
    count: Schema.optional(Schema.Int),
    hash: Schema.String
  }),
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  startedAt: Schema.optional(Schema.Date),
  finishedAt: Schema.optional(Schema.Date),
  manifest: Schema.optional(RunManifestView)
}) {}

/** `GET /v1/runs`: the runs newest first, a page at a time; `dataset` keeps those over one dataset. */
export const ListRunsParams = Schema.Struct({
  ...PageParams.fields,
  /** Only the runs over the dataset with this hash (a `RunView`'s `dataset.hash`). */
  dataset: Schema.optional(Schema.String)
})

export const RunList = Schema.Struct({
  runs: Schema.Array(RunView),
  /** Present when older entries exist: pass it as `before` for the next page. */
  nextBefore: Schema.optional(Schema.String)
})

export const ItemView = Schema.Struct({
  itemId: Schema.String,
  seq: Schema.Int,
  status: Schema.Literal("pending", "running", "done", "failed"),
  question: Schema.String,
  gold: Schema.Array(Schema.String),
  answer: Schema.optional(Schema.String),
  result: Schema.optional(PipelineResult),
  error: Schema.optional(Schema.Struct({ tag: Schema.String, message: Schema.String })),
  /**
   * Scores in [0, 1] as `GET /v1/compare` counts them (a failed question 0 on every metric), with `scores=true`;
   * none for an unfinished question.
   */
  metrics: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number }))
})

/**
 * `GET /v1/runs/{id}/items/{itemId}`: one question with its result (trace included), its scores in [0, 1] by the
 * task's metrics (when finished and gold answers exist) and the titles of its gold passages (when the dataset has them).
 */
export const ItemDetail = Schema.Struct({
  ...ItemView.fields,
  metrics: Schema.Record({ key: Schema.String, value: Schema.Number }),
  goldTitles: Schema.optional(Schema.Array(Schema.String)),
  /** The ids of the trace's passages that are gold passages of the question (by id, or by title and text together). */
  goldPassageIds: Schema.Array(Schema.String),
  /** The OpenTelemetry trace id of the span the question ran in (stored with its result). */
  traceId: Schema.optional(Schema.String),
  /** The command that shows that trace, when the home holds a trace file of the run (`deepnote run --trace`). */
  traceCommand: Schema.optional(Schema.String)
})
export type ItemDetail = typeof ItemDetail.Type

export const ResultsParams = Schema.Struct({
  /** Items after this `seq` (the previous page's `nextAfter`). */
  after: Schema.optional(Schema.NumberFromString.pipe(Schema.int())),
  limit: Schema.optional(IntParam(1, 5000)),
  /** Whether to include the metric report (it reads the whole run); default: on the first page only (no `after`). */
  report: Schema.optional(Schema.Literal("true", "false")),
  /** Whether each item carries its scores (`metrics`); default false. */
  scores: Schema.optional(Schema.Literal("true", "false"))
})

/** `POST /v1/runs/{id}/resume`'s query: `retryFailed=true` queues the run's failed questions too. */
export const ResumeParams = Schema.Struct({
  retryFailed: Schema.optional(Schema.Literal("true", "false"))
})

/** A page of a run's items (every status, by `seq`) and the metric report over the whole run. */
export const RunResults = Schema.Struct({
  run: RunView,
  items: Schema.Array(ItemView),
  nextAfter: Schema.optional(Schema.Int),
  report: Schema.optional(Report)
})
