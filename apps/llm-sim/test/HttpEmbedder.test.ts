import { Embedder } from "@deepnote-rag/core"
import { embeddingsSettingsFromConfig, HttpEmbedder } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option, Redacted } from "effect"
import { embed as simEmbed } from "../src/HashedEmbedding.js"
import { start } from "../src/index.js"

const fast = { backoffBaseMs: 5 } as const

/** The embedder, built for the test's scope (its connection pool and endpoint probes live until the test ends). */
const embedderOn = (input: Parameters<typeof HttpEmbedder.layer>[0]) =>
  Effect.map(Layer.build(HttpEmbedder.layer(input)), Context.get(Embedder))

const cos = (a: Float32Array, b: ReadonlyArray<number> | Float32Array) => a.reduce((n, x, i) => n + x * b[i]!, 0)

describe("HttpEmbedder against the simulator (real HTTP on 127.0.0.1)", () => {
  it.scopedLive("embeds in batches of batchSize, in order, as unit vectors equal to the server's", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const embedder = yield* embedderOn({ endpoints: [{ url: sim.url }], batchSize: 2 })
      const texts = ["Jaws is a thriller film.", "Mine B is a gold mine.", "Steven Spielberg was born in Cincinnati."]
      const vectors = yield* embedder.embed(texts, "passage")
      assert.strictEqual(vectors.length, 3)
      texts.forEach((text, i) => {
        assert.strictEqual(vectors[i]!.length, 384)
        assert.closeTo(cos(vectors[i]!, simEmbed(text, 384)), 1, 1e-5, `vector ${i} is its own text's`)
      })
      assert.strictEqual(sim.metrics.poolingRequests, 2, "3 texts in batches of 2: two requests")
      assert.deepStrictEqual(yield* embedder.model, { model: "deepnote-sim", dimensions: 384 })
      assert.strictEqual(sim.metrics.poolingRequests, 3, "the vector length was asked once")
      yield* embedder.model
      assert.strictEqual(sim.metrics.poolingRequests, 3, "and remembered")
    }))

  it.scopedLive("dimensions and prefixes are sent; a query and a passage differ by their prefix only", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const embedder = yield* embedderOn({
        endpoints: [{ url: sim.url }],
        dimensions: 64,
        queryPrefix: "query: ",
        passagePrefix: "passage: "
      })
      const [query] = yield* embedder.embed(["gold mine"], "query")
      const [passage] = yield* embedder.embed(["gold mine"], "passage")
      assert.strictEqual(query!.length, 64)
      assert.closeTo(cos(query!, simEmbed("query: gold mine", 64)), 1, 1e-5)
      assert.closeTo(cos(passage!, simEmbed("passage: gold mine", 64)), 1, 1e-5)
      assert.deepStrictEqual(yield* embedder.model, { model: "deepnote-sim", dimensions: 64 })
    }))

  it.scopedLive("retries 503s and a malformed reply through the LLM client's retry machinery", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const embedder = yield* embedderOn({ endpoints: [{ url: sim.url }], ...fast })
      sim.faults.failNext(["503", "malformed"])
      const [vector] = yield* embedder.embed(["Mine A"], "passage")
      assert.strictEqual(vector!.length, 384)
      assert.strictEqual(sim.metrics.poolingRequests, 3)
    }))

  it.scopedLive("a bad reply fails in one line naming the server: unreadable ones after the retries, wrong ones at once", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const embedder = yield* embedderOn({ endpoints: [{ url: sim.url }], maxAttempts: 2, ...fast })
      sim.faults.failNext(["malformed", "malformed"])
      const unreadable = yield* Effect.flip(embedder.embed(["Mine A"], "passage"))
      assert.strictEqual(unreadable._tag, "EmbeddingError")
      assert.notInclude(unreadable.message, "\n")
      assert.include(unreadable.message, "embeddings call gave up after 2 attempts")
      assert.include(unreadable.message, `unreadable reply from ${sim.url}: not an embeddings list`)
      assert.strictEqual(sim.metrics.poolingRequests, 2)

      sim.faults.failNext(["garbage"])
      const wrong = yield* Effect.flip(embedder.embed(["Mine A"], "passage"))
      assert.strictEqual(wrong.message, `bad embeddings reply from ${sim.url}: 0 vectors for 1 texts`)
      assert.strictEqual(sim.metrics.poolingRequests, 3, "a reply of the wrong shape is not retried")
    }))

  it.scopedLive("a wrong key is refused at once, with the server's word", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", apiKey: "secret" })
      const good = yield* embedderOn({ endpoints: [{ url: sim.url }], apiKey: "secret" })
      assert.strictEqual((yield* good.embed(["a"], "query")).length, 1)
      const bad = yield* embedderOn({ endpoints: [{ url: sim.url }], apiKey: "nope" })
      const error = yield* Effect.flip(bad.embed(["a"], "query"))
      assert.include(error.message, "401")
      assert.notInclude(error.message, "nope")
    }))
})

describe("embeddings settings from Config (DEEPNOTE_EMBEDDINGS_*)", () => {
  const read = (env: Record<string, string>) =>
    embeddingsSettingsFromConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("none without a URL; every key read; the key redacted", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* read({})))
      const settings = Option.getOrThrow(
        yield* read({
          DEEPNOTE_EMBEDDINGS_URL: "http://a:8000/v1,http://b:8000#2",
          DEEPNOTE_EMBEDDINGS_MODEL: "BAAI/bge-m3",
          DEEPNOTE_EMBEDDINGS_API_KEY: "k",
          DEEPNOTE_EMBEDDINGS_DIMENSIONS: "256",
          DEEPNOTE_EMBEDDINGS_BATCH_SIZE: "32",
          DEEPNOTE_EMBEDDINGS_ATTEMPT_TIMEOUT: "10 seconds"
        })
      )
      assert.deepStrictEqual(settings.endpoints, [{ url: "http://a:8000/v1" }, { url: "http://b:8000", maxNumSeqs: 2 }])
      assert.strictEqual(settings.model, "BAAI/bge-m3")
      assert.strictEqual(Redacted.value(settings.apiKey!), "k")
      assert.notInclude(String(settings.apiKey), "k")
      assert.strictEqual(settings.dimensions, 256)
      assert.strictEqual(settings.batchSize, 32)
      assert.strictEqual(settings.attemptTimeoutMs, 10_000)
    }))

  it.effect("a bad value names its key", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        read({ DEEPNOTE_EMBEDDINGS_URL: "http://a:8000", DEEPNOTE_EMBEDDINGS_BATCH_SIZE: "0" })
      )
      assert.include(String(error), "DEEPNOTE_EMBEDDINGS_BATCH_SIZE")
    }))

  it.effect("layerConfig without a URL says which key to set", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(Layer.build(HttpEmbedder.layerConfig)).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))
        )
      )
      assert.include(String(error), "DEEPNOTE_EMBEDDINGS_URL")
    }))
})
