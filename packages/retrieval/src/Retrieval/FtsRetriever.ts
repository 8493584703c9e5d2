import { RetrievalError, Retriever } from "@deepnote/core"
import { Effect, Layer } from "effect"
import { Collections } from "../Collections.js"
import { retrievalPipeline } from "./RetrievalPipeline.js"

export interface FtsRetrieverOptions {
  /** The collection to search (`<home>/collections/<name>.sqlite`). */
  readonly collection: string
  /** Weight of the CJK bigram columns relative to the word columns. Default 1. */
  readonly cjkWeight?: number
}

const make = (options: FtsRetrieverOptions) =>
  Effect.gen(function*() {
    const collections = yield* Collections
    return yield* retrievalPipeline({
      source: options.collection,
      recall: (query, limit, request) =>
        collections.search(options.collection, query, {
          limit,
          titleWeight: request.context.config.titleWeight,
          textWeight: request.context.config.textWeight,
          ...(options.cjkWeight === undefined ? {} : { cjkWeight: options.cjkWeight })
        }).pipe(Effect.mapError((cause) => new RetrievalError({ message: cause.message, cause })))
    })
  })

/**
 * The `Retriever` over an embedded SQLite FTS5 collection: exact BM25 with the title/text weights of the request's
 * `RunConfig`, then fusion, exclusion and optional reranking (see `retrievalPipeline`).
 */
export class FtsRetriever {
  /** Reads collections from `Home` (its own `Collections`). Provide a `Reranker` too when runs use `reranker: http`. */
  static readonly layer = (options: FtsRetrieverOptions) =>
    Layer.effect(Retriever, make(options)).pipe(Layer.provide(Collections.layer))

  /** Shares an existing `Collections` service (e.g. the HTTP app's). */
  static readonly layerFromCollections = (options: FtsRetrieverOptions) => Layer.effect(Retriever, make(options))
}
