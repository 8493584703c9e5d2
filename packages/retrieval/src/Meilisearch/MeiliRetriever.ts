/**
 * The `Retriever` over a Meilisearch index (keyword ranking rules, or hybrid with an embedder), then fusion,
 * exclusion and optional reranking. Meilisearch ranks by bucket rules, not BM25: use the FTS5 retriever for parity.
 */
import { RetrievalError, Retriever, type RetrieverService } from "@deepnote-rag/core"
import type { HttpClient } from "@effect/platform"
import { type ConfigError, Effect, Layer } from "effect"
import { retrievalPipeline } from "../Retrieval/RetrievalPipeline.js"
import { MeiliClient, type MeiliOptions } from "./MeiliClient.js"

/** Builds the retriever over the `MeiliClient` in context; `Passage.source` is `meilisearch:<index>`. */
export const make: Effect.Effect<RetrieverService, never, MeiliClient> = Effect.gen(function*() {
  const meili = yield* MeiliClient
  return yield* retrievalPipeline({
    source: `meilisearch:${meili.target.index}`,
    concurrency: 4,
    recall: (query, limit) =>
      meili.search(query, limit).pipe(Effect.mapError((cause) => new RetrievalError({ message: cause.message, cause })))
  })
})

/** The retriever with its own client bound to one index, over the `HttpClient` in context. */
export const layer = (options: MeiliOptions): Layer.Layer<Retriever, never, HttpClient.HttpClient> =>
  Layer.effect(Retriever, make).pipe(Layer.provide(MeiliClient.layer(options)))

/** The retriever with its client from `DEEPNOTE_MEILI_*` (see `meiliOptionsConfig`). */
export const layerConfig: Layer.Layer<Retriever, ConfigError.ConfigError, HttpClient.HttpClient> = Layer.effect(
  Retriever,
  make
).pipe(Layer.provide(MeiliClient.layerConfig))
