import { type EmbeddingModel, type RunConfig, usesVectors } from "@deepnote-rag/core"
import {
  type CollectionNotFound,
  Collections,
  type IndexError,
  type InvalidCollectionName,
  type NoVectors
} from "@deepnote-rag/retrieval"
import { Effect } from "effect"

/**
 * What a dense or hybrid run's manifest records of its collection's vectors: the embeddings model and their length
 * (queries must be embedded the same way). Undefined for BM25; `NoVectors` for a collection never embedded, so a run
 * is refused before it starts rather than failing at every question.
 */
export const embeddingFacts = (
  config: RunConfig,
  collection: string
): Effect.Effect<
  EmbeddingModel | undefined,
  InvalidCollectionName | CollectionNotFound | IndexError | NoVectors,
  Collections
> =>
  Effect.gen(function*() {
    if (!usesVectors(config)) return undefined
    return yield* (yield* Collections).embeddingModel(collection)
  })
