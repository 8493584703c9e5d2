import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { start } from "../src/index.js"
import { json, post } from "./Http.js"
import { chinesePassages, passages } from "./Prompts.js"

const Embeddings = Schema.Struct({
  object: Schema.Literal("list"),
  model: Schema.String,
  data: Schema.Array(Schema.Struct({
    object: Schema.Literal("embedding"),
    index: Schema.Number,
    embedding: Schema.Union(Schema.Array(Schema.Number), Schema.String)
  })),
  usage: Schema.Struct({ prompt_tokens: Schema.Number, total_tokens: Schema.Number })
})

const vectors = (reply: { readonly text: string; readonly status: number }) => {
  assert.strictEqual(reply.status, 200, reply.text)
  return Schema.decodeUnknownSync(Embeddings)(json(reply)).data.map((d) => {
    if (typeof d.embedding !== "string") return d.embedding
    // what OpenAI's SDK does with `encoding_format: "base64"`: little-endian float32 bytes
    const bytes = Buffer.from(d.embedding, "base64")
    return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4))
  })
}

const cos = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => a.reduce((n, x, i) => n + x * b[i]!, 0)
const best = (query: ReadonlyArray<number>, docs: ReadonlyArray<ReadonlyArray<number>>) =>
  docs.map((d, i) => ({ i, s: cos(query, d) })).sort((a, b) => b.s - a.s)[0]!.i

describe("/v1/embeddings, /v1/rerank, /score", () => {
  it.scopedLive("embeddings are unit vectors that retrieve the right passage, in English and Chinese", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const url = `${sim.url}/v1/embeddings`
      const [one] = vectors(yield* post(url, { input: "Jaws is a thriller film.", model: "deepnote-sim" }))
      assert.strictEqual(one!.length, 384)
      assert.closeTo(cos(one!, one!), 1, 1e-9)

      const english = vectors(yield* post(url, { input: passages.map(([t, x]) => `${t}: ${x}`) }))
      const [born, author] = vectors(
        yield* post(url, {
          input: ["Where was Steven Spielberg born?", "Who wrote the novel Jaws?"]
        })
      )
      assert.strictEqual(best(born!, english), 1)
      assert.strictEqual(best(author!, english), 3)
      const chinese = vectors(yield* post(url, { input: chinesePassages.map(([t, x]) => `${t}：${x}`) }))
      const [magazine, city] = vectors(yield* post(url, { input: ["《新青年》杂志是谁创办的？", "绍兴以什么闻名？"] }))
      assert.strictEqual(best(magazine!, chinese), 3)
      assert.strictEqual(best(city!, chinese), 2)
      assert.isAbove(cos(born!, english[1]!), 0.3)
      assert.isBelow(Math.abs(cos(born!, chinese[2]!)), 0.2, "unrelated texts are about orthogonal")

      const again = vectors(yield* post(url, { input: "Where was Steven Spielberg born?" }))
      assert.deepStrictEqual(again[0], born, "deterministic")
    }))

  it.scopedLive("base64 and dimensions as OpenAI sends them; usage and the scheduler count the tokens", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", embeddingDim: 256 })
      const url = `${sim.url}/v1/embeddings`
      const input = ["Peter Benchley wrote Jaws.", "Cincinnati is on the Ohio River."]
      const floats = yield* post(url, { input })
      const encoded = yield* post(url, { input, encoding_format: "base64" })
      const a = vectors(floats)
      const b = vectors(encoded)
      assert.strictEqual(a[0]!.length, 256)
      a.forEach((v, i) => v.forEach((x, j) => assert.closeTo(b[i]![j]!, x, 1e-6)))
      const usage = Schema.decodeUnknownSync(Embeddings)(json(floats)).usage
      assert.strictEqual(usage.prompt_tokens, usage.total_tokens)
      assert.strictEqual(sim.metrics.promptTokens, 2 * usage.prompt_tokens, "each input ran through the scheduler")
      assert.strictEqual(sim.metrics.success, 4)
      assert.strictEqual(sim.metrics.generationTokens, 0, "prefill only")
      assert.strictEqual(sim.metrics.poolingRequests, 2)

      assert.strictEqual(vectors(yield* post(url, { input, dimensions: 32 }))[1]!.length, 32)
      assert.strictEqual((yield* post(url, { input, dimensions: 512 })).status, 400)
      assert.strictEqual((yield* post(url, { input, model: "other" })).status, 404)
      assert.strictEqual((yield* post(url, { input: [[1, 2, 3]] })).status, 400, "token ids are not taken")
      sim.faults.failNext(["503", "malformed"])
      assert.strictEqual((yield* post(url, { input })).status, 503)
      const truncated = yield* post(url, { input })
      assert.strictEqual(truncated.status, 200)
      assert.throws(() => json(truncated), "Unexpected end of JSON input")
      const small = yield* start({ content: "lite", maxModelLen: 8 })
      const long = yield* post(`${small.url}/v1/embeddings`, { input: "one two three four five six seven eight nine" })
      assert.strictEqual(long.status, 400)
      assert.include(long.text, "maximum context length is 8 tokens")
    }))

  it.scopedLive("rerank orders documents by relevance (top_n, return_documents); score pairs texts", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const documents = passages.map(([t, x]) => `${t}: ${x}`)
      const Rerank = Schema.Struct({
        model: Schema.String,
        usage: Schema.Struct({ total_tokens: Schema.Number }),
        results: Schema.Array(Schema.Struct({
          index: Schema.Number,
          relevance_score: Schema.Number,
          document: Schema.optional(Schema.Struct({ text: Schema.String }))
        }))
      })
      for (const route of ["/v1/rerank", "/rerank", "/v2/rerank"]) {
        const reply = yield* post(`${sim.url}${route}`, { query: "Who wrote the novel Jaws?", documents, top_n: 2 })
        const { results, usage } = Schema.decodeUnknownSync(Rerank)(json(reply))
        assert.deepStrictEqual(results.map((r) => r.index), [3, 0])
        assert.isAbove(results[0]!.relevance_score, results[1]!.relevance_score)
        assert.strictEqual(results[0]!.document?.text, documents[3])
        assert.isAbove(usage.total_tokens, 0)
      }
      const bare = Schema.decodeUnknownSync(Rerank)(json(
        yield* post(`${sim.url}/v1/rerank`, {
          query: "Cincinnati Ohio",
          documents: documents.map((text) => ({ text })),
          return_documents: false
        })
      ))
      assert.strictEqual(bare.results.length, 4)
      assert.strictEqual(bare.results[0]!.index, 2)
      assert.isUndefined(bare.results[0]!.document)

      const Score = Schema.Struct({
        object: Schema.Literal("list"),
        data: Schema.Array(
          Schema.Struct({ index: Schema.Number, object: Schema.Literal("score"), score: Schema.Number })
        )
      })
      const scores = (body: unknown) =>
        Effect.map(
          post(`${sim.url}/score`, body),
          (r) => Schema.decodeUnknownSync(Score)(json(r)).data.map((d) => d.score)
        )
      const oneToMany = yield* scores({ text_1: "Where was Spielberg born?", text_2: documents })
      assert.strictEqual(oneToMany.indexOf(Math.max(...oneToMany)), 1)
      const pairs = yield* scores({ text_1: ["Jaws film", "Ohio River"], text_2: [documents[0], documents[2]] })
      assert.isTrue(pairs.every((s) => s > 0.2))
      assert.strictEqual(
        (yield* post(`${sim.url}/v1/score`, { text_1: ["a", "b"], text_2: ["a", "b", "c"] })).status,
        400
      )
    }))
})
