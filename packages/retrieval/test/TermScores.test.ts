import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { ConfigProvider, Effect, Either, Layer } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Collections, type MatchQuery, matchQuery, searchCacheConfig, searchCacheLayer } from "../src/index.js"
import { type ColumnWeightList, openTermScores, type TermScores } from "../src/Index/TermScores.js"
import { defaultTermScoresLimits, makeTermScoresMemory } from "../src/Index/TermScoresMemory.js"
import { dataDir, TempCollections } from "./support/TempHome.js"

/** FTS5's own query, as `FtsQueries.search` runs it: the reference every answer of `TermScores` must equal. */
const reference = (file: string) => {
  const db = new Database(file, { readonly: true })
  const statement = db.prepare(`SELECT d.id AS id, -r.score AS score
    FROM (SELECT rowid, bm25(fts, ?, ?, ?, ?) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?) AS r
    JOIN documents AS d ON d.rowid = r.rowid ORDER BY r.score`)
  return {
    search: (query: MatchQuery, limit: number, weights: ColumnWeightList) =>
      statement.all(...weights, query.expression, limit) as Array<{ readonly id: string; readonly score: number }>,
    close: () => db.close()
  }
}

const lines = (file: string) =>
  Fs.readFileSync(Path.join(dataDir, file), "utf8").split("\n").filter((l) => l.trim().length > 0)

/** Questions of the data set and planner-like queries made of them (a question and a few of another's words). */
const queriesOf = (questions: ReadonlyArray<string>): Array<string> =>
  questions.flatMap((question, i) => {
    const other = questions[(i * 7 + 3) % questions.length]!.split(/\s+/u).slice(0, 4).join(" ")
    return [question, `${question}\n${other}`, other]
  })

const weightSets: ReadonlyArray<ColumnWeightList> = [[5, 1, 5, 1], [1, 1, 1, 1], [0, 1, 0, 1], [2, 0.5, 3, 1.5]]

const Fixture = Layer.effectDiscard(Effect.flatMap(Collections, (c) =>
  Effect.all([
    c.index("en", [Path.join(dataDir, "corpus/en-multihop.jsonl")]),
    c.index("zh", [Path.join(dataDir, "corpus/zh-cmrc2018.jsonl")])
  ]))).pipe(Layer.provideMerge(TempCollections))

const fileOf = (name: string) => Effect.map(Effect.flatMap(Collections, (c) => c.info(name)), (info) => info.file)

/** Every query × weight set × limit through `scores` and FTS5; the count of answers that were not FTS5's. */
const compare = (
  scores: TermScores,
  fts: ReturnType<typeof reference>,
  queries: ReadonlyArray<string>,
  limits: ReadonlyArray<number>
) => {
  let compared = 0
  const differing: Array<string> = []
  queries.forEach((text, i) => {
    const query = matchQuery(text)
    if (query === undefined) return
    const weights = weightSets[i % weightSets.length]!
    const limit = limits[i % limits.length]!
    const found = scores.search(query, limit, weights)
    compared++
    const expected = fts.search(query, limit, weights)
    const got = found?.map((d) => ({ id: d.id, score: d.score }))
    if (JSON.stringify(got) !== JSON.stringify(expected)) differing.push(text)
  })
  return { compared, differing }
}

const hotpotQuestions = lines("hotpotqa/hard-100.hotpot.jsonl").map((l) =>
  (JSON.parse(l) as { question: string }).question
)
const cmrcQuestions = lines("cmrc2018/dev-questions.jsonl").slice(0, 150).map((l) =>
  (JSON.parse(l) as { question: string }).question
)

it.layer(Fixture, { timeout: 120_000 })("TermScores (BM25 from kept phrase scores)", (it) => {
  it.scoped("answers exactly FTS5's passages, order and scores, English and Chinese, at any weights and limit", () =>
    Effect.gen(function*() {
      for (const [name, questions] of [["en", hotpotQuestions], ["zh", cmrcQuestions]] as const) {
        const file = yield* fileOf(name)
        const scores = yield* openTermScores(file)
        const fts = reference(file)
        // twice: the first pass reads every phrase, the second adds up kept ones
        for (const pass of [1, 2]) {
          const { compared, differing } = compare(scores, fts, queriesOf(questions), [50, 10, 1, 200])
          assert.isAbove(compared, 250, name)
          assert.deepStrictEqual(differing.slice(0, 3), [], `${name}, pass ${pass}: ${differing.length} differ`)
        }
        fts.close()
      }
    }))

  it.scoped("sees a write of another connection: what was kept is dropped, the new passage is found", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const file = yield* fileOf("en")
      const scores = yield* openTermScores(file)
      const query = matchQuery("zanzibar quokka lighthouse")!
      const before = scores.search(query, 5, [5, 1, 5, 1])
      assert.isTrue(Array.isArray(before) && before.every((d) => d.id !== "new-passage"))
      yield* collections.add("en", [{
        id: "new-passage",
        title: "Zanzibar lighthouse",
        text: "A quokka was seen at the Zanzibar lighthouse."
      }])
      const after = scores.search(query, 5, [5, 1, 5, 1])
      assert.strictEqual(Array.isArray(after) ? after[0]?.id : undefined, "new-passage")
      const fts = reference(file)
      assert.deepStrictEqual(after?.map((d) => ({ id: d.id, score: d.score })), fts.search(query, 5, [5, 1, 5, 1]))
      yield* collections.remove("en", ["new-passage"])
      const removed = scores.search(query, 5, [5, 1, 5, 1])
      assert.deepStrictEqual(removed?.map((d) => ({ id: d.id, score: d.score })), fts.search(query, 5, [5, 1, 5, 1]))
      fts.close()
    }))

  it.scoped("stays exact when its budget makes it drop phrases and passages between searches", () =>
    Effect.gen(function*() {
      const file = yield* fileOf("en")
      const scores = yield* openTermScores(
        file,
        makeTermScoresMemory({ ...defaultTermScoresLimits, budget: 2_000, documents: 30 })
      )
      const fts = reference(file)
      const { compared, differing } = compare(scores, fts, queriesOf(hotpotQuestions).slice(0, 120), [50, 10])
      assert.isAbove(compared, 100)
      assert.deepStrictEqual(differing.slice(0, 3), [], `${differing.length} differ`)
      fts.close()
    }))

  it.scoped("two collections open in one process share one budget: exact answers, the total held within it", () =>
    Effect.gen(function*() {
      const memory = makeTermScoresMemory({ ...defaultTermScoresLimits, budget: 20_000, documents: 200 })
      const sides = [] as Array<{ scores: TermScores; fts: ReturnType<typeof reference>; queries: Array<string> }>
      for (const [name, questions] of [["en", hotpotQuestions], ["zh", cmrcQuestions]] as const) {
        const file = yield* fileOf(name)
        sides.push({ scores: yield* openTermScores(file, memory), fts: reference(file), queries: queriesOf(questions) })
      }
      let most = { scores: 0, documents: 0 }
      // the two collections' searches interleaved: each one's entries push the other's out
      for (let i = 0; i < 240; i++) {
        const side = sides[i % 2]!
        const { differing } = compare(side.scores, side.fts, [side.queries[i % side.queries.length]!], [10])
        assert.deepStrictEqual(differing, [], `search ${i}`)
        const held = memory.held()
        assert.isAtMost(held.scores, 20_000)
        assert.isAtMost(held.documents, 200)
        most = { scores: Math.max(most.scores, held.scores), documents: Math.max(most.documents, held.documents) }
      }
      assert.isAbove(most.scores, 10_000, "the budget was reached: entries were dropped")
      assert.strictEqual(memory.held().collections, 2)
      for (const side of sides) side.fts.close()
    }))

  it.effect("a collection closed lets its entries go", () =>
    Effect.gen(function*() {
      const memory = makeTermScoresMemory()
      const file = yield* fileOf("en")
      yield* Effect.scoped(Effect.gen(function*() {
        const scores = yield* openTermScores(file, memory)
        assert.isArray(scores.search(matchQuery("american film director")!, 10, [5, 1, 5, 1]))
        assert.isAbove(memory.held().scores, 0)
        assert.isAbove(memory.held().documents, 0)
      }))
      assert.deepStrictEqual(memory.held(), { scores: 0, documents: 0, collections: 0 })
    }))

  it.scoped("leaves a search with a phrase matching more than maxPostings rows to FTS5 (answers undefined)", () =>
    Effect.gen(function*() {
      const file = yield* fileOf("en")
      const scores = yield* openTermScores(file, makeTermScoresMemory({ ...defaultTermScoresLimits, maxPostings: 20 }))
      assert.isUndefined(scores.search(matchQuery("film director american")!, 10, [5, 1, 5, 1]))
      // a rare phrase alone is still answered
      assert.isArray(scores.search(matchQuery("quokka")!, 10, [5, 1, 5, 1]))
      // no rows asked: none answered, as FTS5's LIMIT 0; a negative limit (SQLite: no limit) is FTS5's
      assert.deepStrictEqual(scores.search(matchQuery("quokka")!, 0, [5, 1, 5, 1]), [])
      assert.isUndefined(scores.search(matchQuery("quokka")!, -1, [5, 1, 5, 1]))
    }))

  it.scoped("a file it cannot open gives a scorer that leaves every search to FTS5", () =>
    Effect.gen(function*() {
      const scores = yield* openTermScores("/nonexistent/collection.sqlite")
      assert.isUndefined(scores.search(matchQuery("paris")!, 10, [5, 1, 5, 1]))
    }))

  it.scoped("a memory that may keep no scores leaves every search to FTS5 and keeps nothing", () =>
    Effect.gen(function*() {
      const memory = makeTermScoresMemory({ ...defaultTermScoresLimits, budget: 0 })
      const scores = yield* openTermScores(yield* fileOf("en"), memory)
      assert.isUndefined(scores.search(matchQuery("american film director")!, 10, [5, 1, 5, 1]))
      // nothing kept, and the collection not even registered: no connection of its own was opened
      assert.deepStrictEqual(memory.held(), { scores: 0, documents: 0, collections: 0 })
    }))

  it.effect("DEEPNOTE_SEARCH_CACHE_SCORES=0: Collections answers every search with FTS5's own query", () =>
    Effect.gen(function*() {
      const fts = reference(yield* fileOf("en"))
      const answers = yield* Effect.scoped(Effect.gen(function*() {
        const collections = yield* Collections.make
        return yield* Effect.forEach(
          hotpotQuestions.slice(0, 10),
          (question) => collections.search("en", question, { limit: 20 })
        )
      })).pipe(
        Effect.provide(searchCacheLayer),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DEEPNOTE_SEARCH_CACHE_SCORES", "0"]])))
      )
      hotpotQuestions.slice(0, 10).forEach((question, i) =>
        assert.deepStrictEqual(
          answers[i]!.map((d) => ({ id: d.id, score: d.score })),
          fts.search(matchQuery(question)!, 20, [5, 1, 5, 1])
        )
      )
      fts.close()
    }))

  it("reads the search cache's limits from the environment: defaults, values, and values that do not read", () => {
    const read = (entries: ReadonlyArray<[string, string]>) =>
      Effect.runSync(
        Effect.either(Effect.withConfigProvider(searchCacheConfig, ConfigProvider.fromMap(new Map(entries))))
      )
    assert.deepStrictEqual(read([]), Either.right(defaultTermScoresLimits))
    assert.deepStrictEqual(
      read([["DEEPNOTE_SEARCH_CACHE_SCORES", "50000000"], ["DEEPNOTE_SEARCH_CACHE_PASSAGES", "0"]]),
      Either.right({ ...defaultTermScoresLimits, budget: 50_000_000, documents: 0 })
    )
    for (const value of ["-1", "lots", "1.5"]) {
      const failed = read([["DEEPNOTE_SEARCH_CACHE_SCORES", value]])
      assert.isTrue(Either.isLeft(failed), value)
      assert.include(String(Either.isLeft(failed) ? failed.left : ""), "DEEPNOTE_SEARCH_CACHE_SCORES")
    }
  })

  it.effect("Collections.search gives FTS5's answer through the kept scores", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const fts = reference(yield* fileOf("en"))
      for (const question of hotpotQuestions.slice(0, 30)) {
        const found = yield* collections.search("en", question, { limit: 20 })
        assert.deepStrictEqual(
          found.map((d) => ({ id: d.id, score: d.score })),
          fts.search(matchQuery(question)!, 20, [5, 1, 5, 1])
        )
      }
      fts.close()
    }))
})

describe("matchQuery", () => {
  it("lists each phrase of the expression alone, in its order: words, then CJK bigrams", () => {
    assert.deepStrictEqual(matchQuery("北京大学 capital"), {
      expression:
        "{title body} : (\"北京大学\" OR \"capital\") OR {title_cjk body_cjk} : (\"北京\" OR \"京大\" OR \"大学\")",
      phrases: [
        "{title body} : \"北京大学\"",
        "{title body} : \"capital\"",
        "{title_cjk body_cjk} : \"北京\"",
        "{title_cjk body_cjk} : \"京大\"",
        "{title_cjk body_cjk} : \"大学\""
      ]
    })
    assert.isUndefined(matchQuery("?! the of"))
  })
})
