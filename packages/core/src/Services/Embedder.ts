import { Context, Effect, Layer } from "effect"
import type { EmbeddingError } from "../Domain/Errors.js"

/** What a text is embedded as: a search query or a passage of a collection (some models prefix the two differently). */
export type EmbedPurpose = "query" | "passage"

/** The model vectors come from, and their length. A collection's vectors and its queries' must share both. */
export interface EmbeddingModel {
  readonly model: string
  readonly dimensions: number
}

export interface EmbedderService {
  /** Texts per request: collections are embedded, and their progress committed, in batches of this size. */
  readonly batchSize: number
  /** The model and the length of its vectors (the server is asked once when the settings do not say). */
  readonly model: Effect.Effect<EmbeddingModel, EmbeddingError>
  /** One unit-length vector per text, in the texts' order. */
  readonly embed: (
    texts: ReadonlyArray<string>,
    purpose: EmbedPurpose
  ) => Effect.Effect<ReadonlyArray<Float32Array>, EmbeddingError>
}

/**
 * Turns texts into vectors for dense retrieval. A core tag, like `Retriever`, so that retrieval uses embeddings
 * without depending on the client that computes them (`@deepnote-rag/llm`'s `HttpEmbedder`).
 */
export class Embedder extends Context.Tag("@deepnote-rag/core/Embedder")<Embedder, EmbedderService>() {
  /** Wraps an implementation so every call is an `Embedder.embed` span. */
  static readonly make = (impl: EmbedderService): EmbedderService => ({
    batchSize: impl.batchSize,
    model: impl.model,
    embed: Effect.fn("Embedder.embed")(function*(texts: ReadonlyArray<string>, purpose: EmbedPurpose) {
      yield* Effect.annotateCurrentSpan({ "deepnote.embed.texts": texts.length, "deepnote.embed.purpose": purpose })
      return yield* impl.embed(texts, purpose)
    })
  })

  /** A test double's layer: the implementation wrapped in the same spans as a real one. */
  static readonly layerTest = (impl: EmbedderService) => Layer.succeed(Embedder, Embedder.make(impl))
}
