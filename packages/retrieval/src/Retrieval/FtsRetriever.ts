/**
 * The `Retriever` over an embedded SQLite FTS5 collection: exact BM25 with the title/text weights of the request's
 * `RunConfig`, then fusion, exclusion and optional reranking (see `retrievalPipeline`). Reads the collection through
 * the `Collections` service in context, so every retriever of a process shares its open files.
 * Provide a `Reranker` too when runs use `reranker: http`.
 */
import { RetrievalError, Retriever, type RetrieverService } from "@deepnote-rag/core"
import { Effect, Layer } from "effect"
import { Collections, type CollectionsService } from "../Collections.js"
import { type PipelineSpec, retrievalPipeline } from "./RetrievalPipeline.js"

export interface FtsRetrieverOptions {
  /** The collection to search (`<home>/collections/<name>.sqlite`). */
  readonly collection: string
  /** Weight of the CJK bigram columns relative to the word columns. Default 1. */
  readonly cjkWeight?: number
}

/** BM25 recall of one query (the hybrid retriever's lexical half). */
export const recall =
  (collections: CollectionsService, options: FtsRetrieverOptions): PipelineSpec["recall"] => (query, limit, request) =>
    collections.search(options.collection, query, {
      limit,
      titleWeight: request.context.config.titleWeight,
      textWeight: request.context.config.textWeight,
      ...(options.cjkWeight === undefined ? {} : { cjkWeight: options.cjkWeight })
    }).pipe(Effect.mapError((cause) => new RetrievalError({ message: cause.message, cause })))

/** Builds the retriever over a collection of the `Collections` in context. */
export const make = (options: FtsRetrieverOptions): Effect.Effect<RetrieverService, never, Collections> =>
  Effect.gen(function*() {
    const collections = yield* Collections
    return yield* retrievalPipeline({ source: options.collection, recall: recall(collections, options) })
  })

/** The `Retriever` layer; needs `Collections` (e.g. `Collections.layer` over `Home`). */
export const layer = (options: FtsRetrieverOptions): Layer.Layer<Retriever, never, Collections> =>
  Layer.effect(Retriever, make(options))
