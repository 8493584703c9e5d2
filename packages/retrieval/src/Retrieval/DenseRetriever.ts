/**
 * The `Retriever` over a collection's vectors: each query is embedded (the core `Embedder` in context, e.g.
 * `@deepnote-rag/llm`'s `HttpEmbedder`) and its nearest passages are recalled through the ANN file beside the collection,
 * then the usual pipeline (fusion, exclusion, optional rerank, top-k). Without an `Embedder`, or on a collection
 * that was never embedded, a search fails with one line saying what to do.
 */
import { Embedder, type EmbedderService, RetrievalError, Retriever, type RetrieverService } from "@deepnote-rag/core"
import { Effect, Layer, Option } from "effect"
import { Collections, type CollectionsService } from "../Collections.js"
import { type PipelineSpec, retrievalPipeline } from "./RetrievalPipeline.js"

export interface DenseRetrieverOptions {
  /** The collection to search (`<home>/collections/<name>.sqlite`, embedded with `Collections.embed`). */
  readonly collection: string
}

/** What a dense search without an embeddings server says. */
export const noEmbedder = "dense retrieval needs an embeddings server: set DEEPNOTE_EMBEDDINGS_URL (an " +
  "OpenAI-compatible /v1/embeddings: vLLM with --task embed, or TEI; see docs/dense-retrieval.md)"

/** Dense recall of one query (the hybrid retriever's semantic half). */
export const recall = (
  collections: CollectionsService,
  embedder: Option.Option<EmbedderService>,
  options: DenseRetrieverOptions
): PipelineSpec["recall"] =>
(query, limit) =>
  Option.match(embedder, {
    onNone: () => Effect.fail(new RetrievalError({ message: noEmbedder })),
    onSome: (e) =>
      Effect.gen(function*() {
        const { model } = yield* e.model
        const [vector] = yield* e.embed([query], "query")
        return yield* collections.nearest(options.collection, vector!, model, limit)
      }).pipe(Effect.mapError((cause) => new RetrievalError({ message: cause.message, cause })))
  })

/** Builds the retriever over a collection of the `Collections` in context, with the `Embedder` in context if any. */
export const make = (options: DenseRetrieverOptions): Effect.Effect<RetrieverService, never, Collections> =>
  Effect.gen(function*() {
    const collections = yield* Collections
    const embedder = yield* Effect.serviceOption(Embedder)
    return yield* retrievalPipeline({ source: options.collection, recall: recall(collections, embedder, options) })
  })

/** The `Retriever` layer; needs `Collections`, and an `Embedder` for searches to succeed. */
export const layer = (options: DenseRetrieverOptions): Layer.Layer<Retriever, never, Collections> =>
  Layer.effect(Retriever, make(options))
