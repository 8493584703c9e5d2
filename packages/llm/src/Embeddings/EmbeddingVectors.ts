import { EmbeddingError } from "@deepnote-rag/core"
import { Effect } from "effect"
import type { EmbeddingList } from "../Domain/Wire.js"

/** OpenAI's `encoding_format: "base64"`: little-endian float32 bytes. */
const fromBase64 = (text: string): Float32Array => {
  const bytes = Buffer.from(text, "base64")
  const vector = new Float32Array(Math.floor(bytes.length / 4))
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4)
  return vector
}

/** Scaled to unit length, so that inner product is cosine; the zero vector stays zero. */
const normalised = (vector: Float32Array): Float32Array => {
  let sum = 0
  for (const x of vector) sum += x * x
  if (sum === 0) return vector
  const inverse = 1 / Math.sqrt(sum)
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * inverse
  return vector
}

/**
 * The vectors of a reply in the order of the texts sent: one per text (by `index`), all of one length (the asked
 * `dimensions` when set), finite numbers. Anything else is one `EmbeddingError` line naming the server.
 */
export const toVectors = (
  items: EmbeddingList["data"],
  expected: number,
  dimensions: number | undefined,
  url: string
): Effect.Effect<Array<Float32Array>, EmbeddingError> =>
  Effect.suspend(() => {
    const bad = (what: string) =>
      Effect.fail(new EmbeddingError({ message: `bad embeddings reply from ${url}: ${what}` }))
    if (items.length !== expected) return bad(`${items.length} vectors for ${expected} texts`)
    const vectors = new Array<Float32Array | undefined>(expected)
    for (const item of items) {
      if (item.index < 0 || item.index >= expected || vectors[item.index] !== undefined) {
        return bad(`vector index ${item.index} is out of range or repeated (${expected} texts)`)
      }
      vectors[item.index] = typeof item.embedding === "string"
        ? fromBase64(item.embedding)
        : Float32Array.from(item.embedding)
    }
    const found = vectors.flatMap((v) => (v === undefined ? [] : [v]))
    const length = dimensions ?? found[0]?.length ?? 0
    if (length === 0) return bad("empty vectors")
    const wrong = found.findIndex((v) => v.length !== length)
    if (wrong >= 0) {
      return bad(
        `vector ${wrong} has ${found[wrong]!.length} dimensions, expected ${length}${
          dimensions === undefined ? "" : " (DEEPNOTE_EMBEDDINGS_DIMENSIONS)"
        }`
      )
    }
    if (found.some((v) => v.some((x) => !Number.isFinite(x)))) return bad("a vector holds a non-finite number")
    return Effect.succeed(found.map(normalised))
  })
