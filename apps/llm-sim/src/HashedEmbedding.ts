import { isStopWord } from "@deepnote-rag/text"
import { hash32 } from "./Sampling.js"

const runs = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]+|[\p{L}\p{N}]+(?:['’]\p{L}+)*/gu
const cjkRun = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]/u

/** Weight of a stop word ("the", "的", "什么"): kept, so a text of stop words alone still has a vector, but faint. */
const stopWeight = 0.1

/**
 * A text's weighted features: lower-cased word unigrams (possessive "'s" dropped) and, in Chinese (Han) runs,
 * overlapping character bigrams (a lone character stands for itself). A feature weighs 1 + ln(count), times
 * `stopWeight` for a stop word and ½ for a bigram holding one stop character.
 */
export const features = (text: string): Map<string, number> => {
  const counts = new Map<string, { count: number; weight: number }>()
  const add = (feature: string, weight: number) => {
    const seen = counts.get(feature)
    if (seen === undefined) counts.set(feature, { count: 1, weight })
    else seen.count++
  }
  for (const [run] of text.normalize("NFKC").toLowerCase().matchAll(runs)) {
    if (!cjkRun.test(run)) {
      const word = run.replace(/['’]s$/u, "")
      add(word, isStopWord(word) ? stopWeight : 1)
      continue
    }
    const chars = Array.from(run)
    if (chars.length === 1) add(run, isStopWord(run) ? stopWeight : 1)
    for (let i = 0; i + 1 < chars.length; i++) {
      const gram = chars[i]! + chars[i + 1]!
      const stops = (isStopWord(chars[i]!) ? 1 : 0) + (isStopWord(chars[i + 1]!) ? 1 : 0)
      add(gram, isStopWord(gram) || stops === 2 ? stopWeight : stops === 1 ? 0.5 : 1)
    }
  }
  return new Map([...counts].map(([feature, { count, weight }]) => [feature, weight * (1 + Math.log(count))]))
}

/**
 * A deterministic embedding for retrieval tests: the text's weighted features (`features`) summed into `dim` buckets
 * by a hash, with a hashed sign (the "hashing trick": collisions cancel out on average), then
 * L2-normalised. Texts sharing words (or Chinese bigrams) get a high cosine; unrelated texts about 0. An empty text
 * is the zero vector.
 */
export const embed = (text: string, dim: number): Array<number> => {
  const vector = new Array<number>(dim).fill(0)
  for (const [feature, weight] of features(text)) {
    const sign = (hash32(feature, 0x9747b28c) & 1) === 0 ? 1 : -1
    vector[hash32(feature) % dim]! += sign * weight
  }
  const norm = Math.sqrt(vector.reduce((n, x) => n + x * x, 0))
  return norm === 0 ? vector : vector.map((x) => x / norm)
}

/** Cosine of two L2-normalised vectors (their dot product); 0 when either is the zero vector. */
export const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let dot = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) dot += a[i]! * b[i]!
  return dot
}

/** OpenAI's `encoding_format: "base64"`: the vector as little-endian float32 bytes, base64-encoded. */
export const toBase64 = (vector: ReadonlyArray<number>): string => {
  const bytes = Buffer.alloc(vector.length * 4)
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4))
  return bytes.toString("base64")
}
