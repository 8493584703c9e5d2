import { Retriever } from "@deepnote-rag/core"
import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Collections, FtsRetriever } from "../src/index.js"
import { request } from "./support/Context.js"
import { TempCollections } from "./support/TempHome.js"

const question =
  "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
const planned = "Shirley Temple"

/** A two-hop chain (film → actress) among passages that share the question's words but are off the chain. */
const docs = [
  {
    id: "film",
    title: "Kiss and Tell (1945 film)",
    text: "Kiss and Tell is a comedy film starring Shirley Temple as Corliss Archer."
  },
  {
    id: "meet",
    title: "Meet Corliss Archer",
    text: "Meet Corliss Archer is a radio comedy; Corliss Archer is a teenage girl."
  },
  {
    id: "tv",
    title: "Corliss Archer (TV series)",
    text: "The television series about Corliss Archer, the woman portrayed in the film."
  },
  {
    id: "play",
    title: "Kiss and Tell (play)",
    text: "Kiss and Tell is a play; the film Kiss and Tell portrayed Corliss Archer."
  },
  {
    id: "office",
    title: "Government position",
    text: "A government position held by a woman: the first woman who held it."
  },
  {
    id: "actress",
    title: "Shirley Temple",
    text: "Shirley Temple Black was an actress and diplomat, Chief of Protocol."
  },
  { id: "temple", title: "Temple", text: "A temple is a building for worship; Shirley is a given name." }
]

const RetrieverLive = FtsRetriever.layer({ collection: "chain" }).pipe(
  Layer.provideMerge(Layer.effectDiscard(Effect.flatMap(Collections, (c) => c.add("chain", docs)))),
  Layer.provideMerge(TempCollections)
)
const search = (r: ReturnType<typeof request>) => Effect.flatMap(Retriever, (retriever) => retriever.search(r))
const ids = (passages: ReadonlyArray<{ readonly id: string }>) => passages.map((p) => p.id)

it.layer(RetrieverLive)("leads (the `both` composition) over FTS5", (it) => {
  it.effect("a planned query alone keeps its first find, which the question's terms push out of q0 + q_t", () =>
    Effect.gen(function*() {
      const seen = { exclude: ["film"], topK: 2 }
      const withQuestion = yield* search(request([`${question}\n${planned}`], seen))
      assert.notInclude(ids(withQuestion), "actress", ids(withQuestion).join(" "))
      const alone = yield* search(request([planned], seen))
      assert.strictEqual(alone[0]!.id, "actress")
      const both = yield* search({ ...request([`${question}\n${planned}`], seen), leads: [planned] })
      // the lead's first, then the fused list of the main queries (the lead's other finds are not used)
      assert.deepStrictEqual(ids(both), ["actress", withQuestion[0]!.id])
      assert.notInclude(ids(both), "temple")
    }))

  it.effect("a lead's first is a new passage: seen ones are dropped before it is taken", () =>
    Effect.gen(function*() {
      const found = yield* search({
        ...request([question], { exclude: ["actress", "film"], topK: 3 }),
        leads: [planned]
      })
      assert.notInclude(ids(found), "actress")
      assert.notInclude(ids(found), "film")
      assert.strictEqual(found.length, 3)
    }))

  it.effect("leads alone retrieve their firsts; two leads with the same first give it once", () =>
    Effect.gen(function*() {
      const found = yield* search({ ...request([], { topK: 5 }), leads: [planned, "Shirley Temple actress", " "] })
      assert.deepStrictEqual(ids(found), ["actress"])
    }))
})
