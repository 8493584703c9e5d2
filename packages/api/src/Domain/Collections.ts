import { Schema } from "effect"
import { CollectionName } from "./Names.js"

export class CollectionSummary extends Schema.Class<CollectionSummary>("CollectionSummary")({
  name: Schema.String,
  documents: Schema.Int,
  sizeBytes: Schema.Int,
  stemming: Schema.Literal("porter", "none")
}) {}

export const CollectionList = Schema.Struct({ collections: Schema.Array(CollectionSummary) })

export const CreateCollection = Schema.Struct({
  name: CollectionName,
  /** Tokenizer setting fixed at creation. Default `porter`. */
  stemming: Schema.optional(Schema.Literal("porter", "none"))
})

/** One passage to index. Without an id, one is derived from the title and text. */
export const DocumentInput = Schema.Struct({
  id: Schema.optional(Schema.String.pipe(Schema.minLength(1, { message: () => "id is empty" }), Schema.maxLength(256))),
  title: Schema.optional(Schema.String),
  text: Schema.String.pipe(Schema.pattern(/\S/u, { message: () => "text is empty" })),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type DocumentInput = typeof DocumentInput.Type

export const JobStatus = Schema.Literal("queued", "running", "done", "failed", "interrupted")

/** An ingestion job: an upload stored on disk, validated and then added in the background. */
export class IngestJob extends Schema.Class<IngestJob>("IngestJob")({
  id: Schema.String,
  collection: Schema.String,
  status: JobStatus,
  received: Schema.Int,
  added: Schema.Int,
  skipped: Schema.Int,
  createdAt: Schema.String,
  finishedAt: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String)
}) {}

export const SearchHit = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  text: Schema.String,
  score: Schema.Number
})

export const SearchResponse = Schema.Struct({
  collection: Schema.String,
  query: Schema.String,
  hits: Schema.Array(SearchHit)
})
