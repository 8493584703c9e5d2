import { RetrievalError, Retriever } from "@deepnote/core"
import { Effect, Layer } from "effect"
import { retrievalPipeline } from "../Retrieval/RetrievalPipeline.js"
import { MeiliClient, type MeiliOptions } from "./MeiliClient.js"

const make = Effect.gen(function*() {
  const meili = yield* MeiliClient
  return yield* retrievalPipeline({
    source: "meilisearch",
    concurrency: 4,
    recall: (query, limit) =>
      meili.search(query, limit).pipe(Effect.mapError((cause) => new RetrievalError({ message: cause.message, cause })))
  })
})

/**
 * The `Retriever` over a Meilisearch index (keyword ranking rules, or hybrid with an embedder), then fusion,
 * exclusion and optional reranking. Meilisearch ranks by bucket rules, not BM25: use the FTS5 retriever for parity.
 */
export class MeiliRetriever {
  static readonly layer = (options: MeiliOptions) =>
    Layer.effect(Retriever, make).pipe(Layer.provide(MeiliClient.layer(options)))
  static readonly layerConfig = Layer.effect(Retriever, make).pipe(Layer.provide(MeiliClient.layerConfig))
  /** Uses a `MeiliClient` from the context. */
  static readonly layerFromClient = Layer.effect(Retriever, make)
}
