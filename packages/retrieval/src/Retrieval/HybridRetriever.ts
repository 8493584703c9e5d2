/**
 * The `Retriever` that recalls with both BM25 and dense vectors: per query, the two candidate lists (each of the
 * pipeline's recall size) are merged by reciprocal-rank fusion (k = 60), then the usual pipeline runs (fusion across
 * queries, exclusion, optional rerank, top-k). `Passage.score` after recall is the RRF score.
 */
import { Embedder, Retriever, type RetrieverService } from "@deepnote-rag/core"
import { Effect, Layer } from "effect"
import { Collections } from "../Collections.js"
import * as DenseRetriever from "./DenseRetriever.js"
import * as FtsRetriever from "./FtsRetriever.js"
import { reciprocalRankFusion } from "./Fusion.js"
import { retrievalPipeline } from "./RetrievalPipeline.js"

export interface HybridRetrieverOptions {
  readonly collection: string
  /** Weight of the CJK bigram columns of BM25 relative to the word columns. Default 1. */
  readonly cjkWeight?: number
}

/** Builds the retriever over a collection of the `Collections` in context, with the `Embedder` in context if any. */
export const make = (options: HybridRetrieverOptions): Effect.Effect<RetrieverService, never, Collections> =>
  Effect.gen(function*() {
    const collections = yield* Collections
    const lexical = FtsRetriever.recall(collections, options)
    const dense = DenseRetriever.recall(collections, yield* Effect.serviceOption(Embedder), options)
    return yield* retrievalPipeline({
      source: options.collection,
      recall: (query, limit, request) =>
        Effect.map(
          Effect.all([lexical(query, limit, request), dense(query, limit, request)], { concurrency: 2 }),
          (lists) => reciprocalRankFusion(lists).slice(0, limit)
        )
    })
  })

/** The `Retriever` layer; needs `Collections`, and an `Embedder` for searches to succeed. */
export const layer = (options: HybridRetrieverOptions): Layer.Layer<Retriever, never, Collections> =>
  Layer.effect(Retriever, make(options))
