import { Embedder, type EmbedderService, EmbeddingError } from "@deepnote-rag/core"
import { Effect } from "effect"

const dimensions = 64

/** FNV-1a: a word's bucket. */
const bucket = (word: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193)
  return (h >>> 0) % dimensions
}

/** A deterministic bag-of-words vector (lower-cased words hashed into 64 buckets, unit length). */
export const wordVector = (text: string): Float32Array => {
  const v = new Float32Array(dimensions)
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[bucket(word)]! += 1
  const norm = Math.hypot(...v)
  return norm === 0 ? v : v.map((x) => x / norm)
}

/**
 * An in-process `Embedder` for retrieval tests: bag-of-words vectors, batches of `batchSize`, every call recorded
 * (the texts of each request); `failAt` makes that call (1-based) fail, as a server that goes away would.
 */
export const wordEmbedder = (
  options: { readonly batchSize?: number; readonly model?: string; readonly failAt?: number } = {}
) => {
  const calls: Array<ReadonlyArray<string>> = []
  const service: EmbedderService = {
    batchSize: options.batchSize ?? 2,
    model: Effect.succeed({ model: options.model ?? "words-64", dimensions }),
    embed: (texts) =>
      Effect.suspend(() => {
        calls.push(texts)
        return calls.length === options.failAt
          ? Effect.fail(new EmbeddingError({ message: "embeddings server went away" }))
          : Effect.succeed(texts.map(wordVector))
      })
  }
  return { calls, service: Embedder.make(service), layer: Embedder.layerTest(service) }
}
