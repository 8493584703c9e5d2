/**
 * The replies of the Meilisearch v1 API that DeepNote reads, decoded at the boundary. Shapes from Meilisearch's API
 * reference (tasks, documents, indexes, settings, search, stats, health, version, errors) and its own integration
 * tests; `packages/retrieval/src/Testing/MeiliReplay.ts` replays them with their sources. Fields DeepNote does not read
 * are left out (unknown keys are ignored: newer servers add fields).
 */
import { Schema } from "effect"

/** Every API error: `{ message, code, type, link }` with a 4xx/5xx status. */
export const MeiliApiError = Schema.Struct({
  message: Schema.String,
  code: Schema.String,
  type: Schema.String,
  link: Schema.optional(Schema.String)
})
export type MeiliApiError = typeof MeiliApiError.Type

/** The summarized task of every enqueuing route (HTTP 202). */
export const EnqueuedTask = Schema.Struct({
  taskUid: Schema.Int,
  indexUid: Schema.NullOr(Schema.String),
  status: Schema.String,
  type: Schema.String
})
export type EnqueuedTask = typeof EnqueuedTask.Type

export const TaskStatus = Schema.Literal("enqueued", "processing", "succeeded", "failed", "canceled")
export type TaskStatus = typeof TaskStatus.Type

/** `GET /tasks/{uid}`. */
export const Task = Schema.Struct({
  uid: Schema.Int,
  indexUid: Schema.NullOr(Schema.String),
  status: TaskStatus,
  type: Schema.String,
  details: Schema.optionalWith(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })), {
    default: () => null
  }),
  error: Schema.optionalWith(Schema.NullOr(MeiliApiError), { default: () => null })
})
export type Task = typeof Task.Type

/** `GET /indexes/{uid}`. */
export const IndexInfo = Schema.Struct({ uid: Schema.String, primaryKey: Schema.NullOr(Schema.String) })
export type IndexInfo = typeof IndexInfo.Type

/** `GET /indexes/{uid}/stats`. */
export const IndexStats = Schema.Struct({ numberOfDocuments: Schema.Int })

/** `GET /health`. */
export const Health = Schema.Struct({ status: Schema.String })

/** `GET /version`. */
export const Version = Schema.Struct({ pkgVersion: Schema.String })

/** One hit of `POST /indexes/{uid}/search` with `showRankingScore: true` (DeepNote's documents: `id`, `title`, `text`). */
export const MeiliHit = Schema.Struct({
  id: Schema.Union(Schema.String, Schema.Number),
  title: Schema.optionalWith(Schema.String, { default: () => "" }),
  text: Schema.String,
  _rankingScore: Schema.optionalWith(Schema.Number, { default: () => 0 })
})

export const MeiliSearchReply = Schema.Struct({
  hits: Schema.Array(MeiliHit),
  processingTimeMs: Schema.optional(Schema.Number),
  estimatedTotalHits: Schema.optional(Schema.Int)
})
export type MeiliSearchReply = typeof MeiliSearchReply.Type
