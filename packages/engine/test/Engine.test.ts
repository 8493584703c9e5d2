import { answerQuestion, Embedder, NoteWriter } from "@deepnote-rag/core"
import { HttpEmbedder, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { start } from "@deepnote-rag/llm-sim"
import { Collections } from "@deepnote-rag/retrieval"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option } from "effect"
import { adHocQuestion, Engine, promptSetHash } from "../src/index.js"
import { config, goldReranker, MinesCollection, question, search, SettingsRead, unusedLlm } from "./support.js"

const fast = { backoffBaseMs: 5, backoffMaxMs: 50, cooldownMs: 100, healthIntervalMs: 100, cache: false } as const

describe("Engine.layer", () => {
  it.scoped("extractive: answers from the collection, and never builds the LLM settings", () =>
    Effect.gen(function*() {
      const cfg = config()
      const result = yield* answerQuestion(question, cfg).pipe(
        Effect.provide(Engine.layer({ config: cfg, collection: "mines", llm: unusedLlm }))
      )
      assert.include(result.answer.text, "Mine B")
      assert.isTrue(result.trace.passages.some((e) => e.passage.id === "b"))
    }).pipe(Effect.provide(MinesCollection)))

  it.scoped("llm: builds the settings it is given, and fails with their error", () =>
    Effect.gen(function*() {
      const cfg = config({ engine: "llm" })
      const error = yield* Effect.flip(
        answerQuestion(question, cfg).pipe(
          Effect.provide(Engine.layer({ config: cfg, collection: "mines", llm: unusedLlm }))
        )
      )
      assert.instanceOf(error, SettingsRead)
    }).pipe(Effect.provide(MinesCollection)))

  it.scopedLive("llm: the roles call the LLM servers; the usage ledger stays in the context (runs read it)", () =>
    Effect.gen(function*() {
      const sim = yield* start({})
      const cfg = config({ engine: "llm" })
      const llm = LlmSettings.layer({ endpoints: [{ url: sim.url }], ...fast })
      const context = yield* Layer.build(Engine.layer({ config: cfg, collection: "mines", llm }))
      const result = yield* answerQuestion(question, cfg).pipe(Effect.provide(context))
      assert.isTrue(result.answer.text.length > 0)
      assert.strictEqual(sim.metrics.byRole["init"], 1)
      assert.strictEqual(sim.metrics.byRole["answer"], 1)
      const ledger = yield* Effect.serviceOption(UsageLedger).pipe(Effect.provide(context))
      assert.isTrue(Option.isSome(ledger))
      const usage = yield* Option.getOrThrow(ledger).snapshot
      assert.isTrue(usage.total.calls >= 2)
    }).pipe(Effect.provide(MinesCollection)))

  it.scopedLive("reranker http: the retriever reorders the recalled passages through the rerank server", () =>
    Effect.gen(function*() {
      const reranker = yield* goldReranker
      const plain = config()
      const reranked = config({ reranker: "http", rerankerApi: "tei", rerankerUrl: reranker.url })
      const before = yield* search(["mine opened"], plain).pipe(
        Effect.provide(Engine.layer({ config: plain, collection: "mines", llm: unusedLlm }))
      )
      const after = yield* search(["mine opened"], reranked).pipe(
        Effect.provide(Engine.layer({ config: reranked, collection: "mines", llm: unusedLlm }))
      )
      assert.notStrictEqual(before[0]!.id, "b")
      assert.strictEqual(after[0]!.id, "b")
      assert.strictEqual(reranker.requests.length, 1)
    }).pipe(Effect.provide(MinesCollection)))
})

/** The simulator's embeddings over real HTTP, and the mines collection embedded through them. */
const embeddedMines = Effect.gen(function*() {
  const sim = yield* start({ content: "lite" })
  const embedder = HttpEmbedder.layer({ endpoints: [{ url: sim.url }] })
  const service = Context.get(yield* Layer.build(embedder), Embedder)
  yield* Effect.flatMap(Collections, (c) => c.embed("mines", service))
  return { sim, embedder }
})

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("Engine.layer: retriever bm25 | dense | hybrid", () => {
  it.scopedLive("dense: queries are embedded by the embeddings server and matched against the collection's vectors", () =>
    Effect.gen(function*() {
      const { embedder, sim } = yield* embeddedMines
      const cfg = config({ retriever: "dense" })
      const before = sim.metrics.poolingRequests
      const found = yield* search(["gold Ghana"], cfg).pipe(
        Effect.provide(Engine.layer({ config: cfg, collection: "mines", llm: unusedLlm, embedder }))
      )
      assert.strictEqual(found[0]!.id, "b")
      assert.isAtMost(found[0]!.score, 1)
      assert.strictEqual(sim.metrics.poolingRequests - before, 2, "the model's length once, then the query")
      const result = yield* answerQuestion(question, cfg).pipe(
        Effect.provide(Engine.layer({ config: cfg, collection: "mines", llm: unusedLlm, embedder }))
      )
      assert.include(result.answer.text, "Mine B")
    }).pipe(Effect.provide(MinesCollection)))

  it.scopedLive("hybrid from DEEPNOTE_EMBEDDINGS_URL: RRF of the BM25 and dense lists", () =>
    Effect.gen(function*() {
      const { sim } = yield* embeddedMines
      const cfg = config({ retriever: "hybrid", topK: 4 })
      const found = yield* search(["copper Chile", "coal Wales"], cfg).pipe(
        Effect.provide(Engine.layer({ config: cfg, collection: "mines", llm: unusedLlm })),
        withEnv({ DEEPNOTE_EMBEDDINGS_URL: sim.url })
      )
      assert.sameMembers(found.slice(0, 2).map((p) => p.id), ["a", "d"])
      assert.isBelow(found[0]!.score, 0.1, "an RRF score")
    }).pipe(Effect.provide(MinesCollection)))

  it.scopedLive("dense without DEEPNOTE_EMBEDDINGS_URL, or on a collection never embedded: one clear line", () =>
    Effect.gen(function*() {
      const cfg = config({ retriever: "dense" })
      const noServer = yield* Effect.flip(
        search(["gold"], cfg).pipe(
          Effect.provide(Engine.layer({ config: cfg, collection: "mines", llm: unusedLlm })),
          withEnv({})
        )
      )
      assert.strictEqual(noServer._tag, "RetrievalError")
      assert.include(noServer.message, "set DEEPNOTE_EMBEDDINGS_URL")
      const sim = yield* start({ content: "lite" })
      const noVectors = yield* Effect.flip(
        search(["gold"], cfg).pipe(
          Effect.provide(
            Engine.layer({
              config: cfg,
              collection: "mines",
              llm: unusedLlm,
              embedder: HttpEmbedder.layer({ endpoints: [{ url: sim.url }] })
            })
          )
        )
      )
      assert.include(noVectors.message, `collection "mines" has no vectors: embed it with \`deepnote embed mines\``)
    }).pipe(Effect.provide(MinesCollection)))
})

describe("Engine.make", () => {
  it.scopedLive("builds the roles once: every layerFor shares them (one LLM client, one settings build)", () =>
    Effect.gen(function*() {
      const sim = yield* start({})
      let builds = 0
      const llm = LlmSettings.layer({ endpoints: [{ url: sim.url }], ...fast }).pipe(
        Layer.tap(() => Effect.sync(() => builds++))
      )
      const shared = yield* Engine.make({ engine: "llm", llm })
      const cfg = config({ engine: "llm" })
      const first = yield* Layer.build(shared.layerFor(cfg, "mines"))
      const second = yield* Layer.build(shared.layerFor(cfg, "mines"))
      assert.strictEqual(Context.get(first, NoteWriter), Context.get(second, NoteWriter))
      yield* answerQuestion(question, cfg).pipe(Effect.provide(first))
      yield* answerQuestion(adHocQuestion("Which mine is in Wales?"), cfg).pipe(Effect.provide(second))
      assert.strictEqual(builds, 1)
      assert.strictEqual(sim.metrics.byRole["answer"], 2)
    }).pipe(Effect.provide(MinesCollection)))

  it.scoped("a retriever per layerFor, over the collection it names", () =>
    Effect.gen(function*() {
      const shared = yield* Engine.make({ engine: "extractive", llm: unusedLlm })
      const found = yield* search(["gold"]).pipe(Effect.provide(shared.layerFor(config(), "mines")))
      assert.deepStrictEqual(found.map((p) => p.id), ["b"])
      const missing = yield* Effect.flip(search(["gold"]).pipe(Effect.provide(shared.layerFor(config(), "none"))))
      assert.strictEqual(missing._tag, "RetrievalError")
    }).pipe(Effect.provide(MinesCollection)))
})

describe("identities", () => {
  it("adHocQuestion: the same text gets the same id, another text another", () => {
    const a = adHocQuestion("Who directed Jaws?")
    assert.match(a.id, /^ask-[0-9a-f]{12}$/)
    assert.strictEqual(adHocQuestion("Who directed Jaws?").id, a.id)
    assert.notStrictEqual(adHocQuestion("Who directed Duel?").id, a.id)
    assert.strictEqual(a.text, "Who directed Jaws?")
  })

  it("promptSetHash: one per engine, stable across calls and other knobs", () => {
    const llm = promptSetHash(config({ engine: "llm" }))
    assert.match(llm, /^llm:[0-9a-f]{64}$/)
    assert.strictEqual(promptSetHash(config({ engine: "llm", topK: 1 })), llm)
    assert.strictEqual(promptSetHash(config()), "extractive@0.1.0")
  })
})
