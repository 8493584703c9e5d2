import { answerQuestion, defaultRunConfig, Home, type PipelineResult, Question } from "@deepnote-rag/core"
import { Collections, FtsRetriever } from "@deepnote-rag/retrieval"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import { Extractive } from "../src/index.js"

/** The bundled sample's English corpus: every paragraph of 30 HotpotQA dev questions (examples/build-sample.mjs). */
const corpus = fileURLToPath(new URL("../../../examples/sample/corpus/hotpotqa-paragraphs.jsonl", import.meta.url))

const TempHome = Layer.unwrapScoped(
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "deepnote-extractive-sample-" }))
    .pipe(
      Effect.map(Home.layer)
    )
).pipe(Layer.provide(NodeContext.layer))

const Indexed = Layer.effectDiscard(
  Effect.flatMap(Collections, (collections) => collections.index("sample", [corpus], { format: "documents" })).pipe(
    Effect.orDie
  )
)

/** Real components: the extractive roles, the SQLite FTS5 collection and its retriever, in a temporary home. */
const Env = Layer.mergeAll(Extractive.layer, FtsRetriever.layer({ collection: "sample" }), Indexed).pipe(
  Layer.provideMerge(Collections.layer),
  Layer.provide(TempHome)
)

const titlesAt = (result: PipelineResult, step: (s: number) => boolean) =>
  result.trace.passages.filter((e) => step(e.step)).map((e) => e.passage.title)

/** Runs a sample question with `vanilla` (one top-5 retrieval) and with the `deepnote` loop. */
const both = (id: string, text: string) =>
  Effect.gen(function*() {
    const question = new Question({ id, text })
    const vanilla = yield* answerQuestion(question, { ...defaultRunConfig, profile: "vanilla" })
    const deepnote = yield* answerQuestion(question, defaultRunConfig)
    return { vanilla, deepnote }
  })

layer(Env)("the deepnote loop over the bundled sample corpus (FTS5 + extractive)", (it) => {
  describe("finds a gold second-hop paragraph that single retrieval missed", () => {
    it.effect("the demo bridge question: the America East Conference's own paragraph", () =>
      Effect.gen(function*() {
        const { deepnote, vanilla } = yield* both(
          "5ab3e45655429976abd1bcd4",
          "The Vermont Catamounts men's soccer team currently competes in a conference that was formerly known as what from 1988 to 1996?"
        )
        const gold = "America East Conference"
        assert.include(titlesAt(vanilla, () => true), "Vermont Catamounts men's soccer")
        assert.notInclude(titlesAt(vanilla, () => true), gold)
        assert.strictEqual(vanilla.trace.passages.length, 5)
        assert.notInclude(titlesAt(deepnote, (s) => s === 0), gold)
        assert.include(titlesAt(deepnote, (s) => s > 0), gold)
        assert.isTrue(deepnote.trace.queries.some((q) => q.step === 1 && q.query.startsWith(gold)))
        assert.isTrue(
          deepnote.trace.notes.some((n) => n.step > 0 && n.best && n.note.text.includes("North Atlantic Conference"))
        )
        assert.include(deepnote.answer.text, "North Atlantic Conference")
        assert.notInclude(vanilla.answer.text, "North Atlantic Conference")
      }))

    it.effect("the Kiss and Tell question: Shirley Temple's paragraph, at the first step, by her name", () =>
      Effect.gen(function*() {
        const { deepnote, vanilla } = yield* both(
          "5a8c7595554299585d9e36b6",
          "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
        )
        assert.notInclude(titlesAt(vanilla, () => true), "Shirley Temple")
        assert.include(titlesAt(deepnote, (s) => s === 1), "Shirley Temple")
        const first = deepnote.trace.queries.filter((q) => q.step === 1).map((q) => q.query)
        // the bridge first, then the next-best candidate: the planner honours numQueries (2)
        assert.strictEqual(first[0], "Shirley Temple government position")
        assert.strictEqual(first.length, 2)
        assert.include(deepnote.bestNote?.text ?? "", "Chief of Protocol")
      }))
  })
})
