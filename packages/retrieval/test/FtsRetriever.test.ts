import { Retriever } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { buildMatch, Collections, FtsRetriever } from "../src/index.js"
import { request } from "./support/Context.js"
import { TempCollections } from "./support/TempHome.js"

const sharedData = fileURLToPath(new URL("../../../../shared/data", import.meta.url))

const docs = [
  { id: "paris", title: "Paris", text: "Paris is the capital and largest city of France, on the Seine." },
  { id: "lyon", title: "Lyon", text: "Lyon is a city in France known for its cuisine; it is not the capital." },
  { id: "berlin", title: "Berlin", text: "Berlin is the capital of Germany." },
  { id: "seine", title: "Seine", text: "The Seine flows through Paris. Paris Paris Paris." },
  {
    id: "rivers",
    title: "Rivers of Europe",
    text: "The Seine, Rhine and Danube are rivers; Paris lies on one of them."
  }
]

const Fixture = Layer.effectDiscard(Effect.flatMap(Collections, (c) => c.add("cities", docs))).pipe(
  Layer.provideMerge(TempCollections)
)
const search = (r: ReturnType<typeof request>) => Effect.flatMap(Retriever, (retriever) => retriever.search(r))
const RetrieverLive = FtsRetriever.layer({ collection: "cities" }).pipe(Layer.provideMerge(Fixture))

it.layer(RetrieverLive)("FtsRetriever (English BM25)", (it) => {
  it.effect("ranks the obviously right passage first, with source and score", () =>
    Effect.gen(function*() {
      const found = yield* search(request(["What is the capital of Germany?"]))
      assert.strictEqual(found[0]!.id, "berlin")
      assert.strictEqual(found[0]!.source, "cities")
      assert.isAbove(found[0]!.score, 0)
      assert.isTrue(found.every((p, i) => i === 0 || found[i - 1]!.score >= p.score))
    }))

  it.effect("title weight changes the ranking", () =>
    Effect.gen(function*() {
      const flat = yield* search(request(["seine"], { config: { titleWeight: 0, textWeight: 1 } }))
      const boosted = yield* search(request(["seine"], { config: { titleWeight: 10, textWeight: 1 } }))
      assert.notStrictEqual(flat[0]!.id, "seine")
      assert.strictEqual(boosted[0]!.id, "seine")
    }))

  it.effect("fuses several queries with reciprocal-rank fusion", () =>
    Effect.gen(function*() {
      const fused = yield* search(request(["capital of Germany", "cuisine of Lyon"], { topK: 2 }))
      assert.sameMembers(fused.map((p) => p.id), ["berlin", "lyon"])
      assert.isAtLeast(fused[0]!.score, 1 / 61)
      assert.isAtMost(fused[0]!.score, 2 / 61)
    }))

  it.effect("drops passages already seen and still fills top-k", () =>
    Effect.gen(function*() {
      const all = yield* search(request(["Paris Seine capital France"], { topK: 3 }))
      const fresh = yield* search(
        request(["Paris Seine capital France"], { topK: 3, recallK: 3, exclude: all.slice(0, 2).map((p) => p.id) })
      )
      assert.strictEqual(fresh.length, 3)
      assert.isFalse(fresh.some((p) => all.slice(0, 2).some((s) => s.id === p.id)))
      const none = yield* search(request(["the of and"]))
      assert.deepStrictEqual(none, [])
    }))

  it.effect("deletes and re-adds passages", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      yield* collections.add("towns", docs)
      const search = (r: ReturnType<typeof request>) =>
        Effect.flatMap(FtsRetriever.make({ collection: "towns" }), (retriever) => retriever.search(r))
      assert.strictEqual(yield* collections.remove("towns", ["berlin", "nope"]), 1)
      const gone = yield* search(request(["Germany"]))
      assert.isFalse(gone.some((p) => p.id === "berlin"))
      assert.strictEqual((yield* collections.info("towns")).documents, 4)
      yield* collections.add("towns", [{
        id: "berlin",
        title: "Berlin",
        text: "Berlin, capital of Germany, on the Spree."
      }])
      const back = yield* search(request(["Spree Germany"]))
      assert.strictEqual(back[0]!.id, "berlin")
      assert.include(back[0]!.text, "Spree")
      const replaced = yield* collections.add("towns", [{
        id: "berlin",
        title: "Berlin",
        text: "Berlin has many museums."
      }], { onDuplicate: "replace" })
      assert.strictEqual(replaced.added, 1)
      assert.deepStrictEqual(yield* search(request(["Spree"])), [])
      assert.strictEqual((yield* collections.info("towns")).documents, 5)
    }))

  it("never passes raw user text to MATCH", () => {
    assert.strictEqual(
      buildMatch("\"hello\" OR NEAR(x* y) AND col:z -w ^q"),
      "{title body} : (\"hello\" OR \"near\" OR \"x\" OR \"y\" OR \"col\" OR \"z\" OR \"w\" OR \"q\")"
    )
    assert.isUndefined(buildMatch("?!( ) the of"))
  })

  it.effect("hostile queries search safely", () =>
    Effect.gen(function*() {
      for (const q of ["\"unbalanced", "NEAR(paris", "title: paris", "paris*", "{title}: x", "AND OR NOT", "\u0000"]) {
        yield* search(request([q]))
      }
    }))
})

interface CmrcQuestion {
  readonly question: string
  readonly paragraph_id: string
}

describe("FtsRetriever (Chinese)", () => {
  const questions = Fs.readFileSync(`${sharedData}/cmrc2018/dev-questions.jsonl`, "utf8").split("\n").filter((l) =>
    l.length > 0
  )
    .map((l) => JSON.parse(l) as CmrcQuestion)
  const Chinese = FtsRetriever.layer({ collection: "zh" }).pipe(
    Layer.provideMerge(
      Layer.effectDiscard(Effect.flatMap(Collections, (c) => c.index("zh", [`${sharedData}/corpus/zh-cmrc2018.jsonl`])))
    ),
    Layer.provideMerge(TempCollections)
  )

  it.scoped("answers cmrc2018 questions with their paragraph (jieba words + bigrams)", () =>
    Effect.gen(function*() {
      const sample = questions.filter((_, i) => i % 20 === 0)
      let top1 = 0
      let top5 = 0
      for (const q of sample) {
        const found = yield* search(request([q.question], { config: { language: "zh" } }))
        if (found[0]?.id === q.paragraph_id) top1++
        if (found.some((p) => p.id === q.paragraph_id)) top5++
      }
      assert.isAbove(top1 / sample.length, 0.6, `top-1 ${top1}/${sample.length}`)
      assert.isAbove(top5 / sample.length, 0.8, `top-5 ${top5}/${sample.length}`)
      const first = yield* search(request(["《战国无双3》是由哪两个公司合作开发的？"]))
      assert.strictEqual(first[0]!.id, "DEV_0")
      const info = yield* Effect.flatMap(Collections, (c) => c.info("zh"))
      assert.strictEqual(info.documents, 848)
    }).pipe(Effect.provide(Chinese)))
})
