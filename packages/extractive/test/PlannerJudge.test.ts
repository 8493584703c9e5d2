import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { judgeNotes, planQueries, planText, updateNote, writeInitialNote } from "../src/index.js"
import { corliss, guangmao } from "./fixtures.js"

describe("planQueries", () => {
  it.effect("proposes the bridge entity with question keywords", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, [corliss.film])
      const queries = planQueries(corliss.question, note, [], 2)
      assert.isTrue(queries.some((q) => q.startsWith("Shirley Temple ")), queries.join(" | "))
      assert.isAtMost(queries.length, 2)
      assert.strictEqual(planText(queries), queries.join("\n"))
    }))

  it.effect("never repeats a logged query nor names what the question already says", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, [corliss.film])
      const first = planQueries(corliss.question, note, [], 2)
      const second = planQueries(corliss.question, note, first, 2)
      for (const q of second) {
        assert.notInclude(first, q)
        assert.isFalse(q.startsWith("Shirley Temple"), q)
        assert.isFalse(q.startsWith("Corliss Archer"), q)
      }
    }))

  it.effect("prefers the bridge named next to the question's entities over names of off-chain sentences", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, [corliss.film, corliss.secretary])
      const [first] = planQueries(corliss.question, note, [], 2)
      assert.isDefined(first)
      assert.isTrue(first!.startsWith("Shirley Temple"), first)
      // Short: the entity plus at most two words its passage should hold; never "portrayed" (the first hop's verb).
      assert.isAtMost(first!.split(" ").length, 4, first)
      assert.notInclude(first!, "portrayed")
    }))

  it.effect("never proposes a descriptor such as a nationality", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, [corliss.film, corliss.secretary])
      for (const q of planQueries(corliss.question, note, ["Shirley Temple"], 5)) {
        assert.isFalse(q.startsWith("American"), q)
        assert.isFalse(q.startsWith("British"), q)
      }
    }))

  it.effect("returns nothing for an empty note (the loops then search the question itself)", () =>
    Effect.sync(() => assert.deepStrictEqual(planQueries(corliss.question, "", [], 2), [])))

  it.effect("after the bridges, the question's entities whose passage the note does not show, none twice", () =>
    Effect.sync(() => {
      const comparison = "Which film has the director died earlier, Payment On Demand or My Cousin From Warsaw?"
      const note = "Curtis Bernhardt (1899 – 1981) was a German film director."
      assert.deepStrictEqual(planQueries(comparison, note, [], 5), [
        "Curtis Bernhardt died earlier",
        "Payment On Demand film director",
        "Cousin From Warsaw film director"
      ])
      assert.deepStrictEqual(planQueries(comparison, note, ["payment on demand film director"], 5), [
        "Curtis Bernhardt died earlier",
        "Cousin From Warsaw film director"
      ])
      // one-word names are left out (often fragments of a title: "Kiss", "Tell")
      const corlissNote = "Lord High Treasurer: The post was an English government position."
      assert.isFalse(planQueries(corliss.question, corlissNote, [], 5).some((q) => /^(Kiss|Tell) /u.test(q)))
      assert.isTrue(planQueries(corliss.question, corlissNote, [], 5).some((q) => q.startsWith("Corliss Archer")))
    }))

  it.effect("Chinese: proposes entities of the note that the question lacks", () =>
    Effect.sync(() => {
      const question = "广茂铁路的终点城市以什么工业闻名？"
      const queries = planQueries(question, writeInitialNote(question, [guangmao[0]!]), [], 2)
      assert.isAbove(queries.length, 0)
      for (const q of queries) assert.notInclude(q, "广茂铁路")
    }))
})

describe("judgeNotes", () => {
  const best = writeInitialNote(corliss.question, [corliss.film])
  const candidate = updateNote(corliss.question, best, [corliss.actress])

  it.effect("better when the candidate adds question-relevant sentences", () =>
    Effect.sync(() => {
      const judgement = judgeNotes(corliss.question, best, candidate)
      assert.isTrue(judgement.better)
      assert.isTrue(judgement.added.some((s) => s.includes("Chief of Protocol")))
    }))

  it.effect("not better for the same, a reordered or a re-spaced note", () =>
    Effect.sync(() => {
      assert.isFalse(judgeNotes(corliss.question, candidate, candidate).better)
      assert.isFalse(judgeNotes(corliss.question, candidate, candidate.split("\n").reverse().join("\n")).better)
      assert.isFalse(judgeNotes(corliss.question, candidate, candidate.replace(/\n/gu, "")).better)
    }))

  it.effect("not better when the new sentences are off-topic", () =>
    Effect.sync(() => {
      const offTopic = `${best}\nThe Bruxner Highway is a state highway in New South Wales.`
      assert.isFalse(judgeNotes(corliss.question, best, offTopic).better)
    }))

  it.effect("not better when the new sentences share only common words with the question", () =>
    Effect.sync(() => {
      const generic = updateNote(corliss.question, best, [corliss.song, corliss.secretary])
      const judgement = judgeNotes(corliss.question, best, `${best}\n${corliss.song.text}\n${corliss.secretary.text}`)
      assert.isFalse(judgement.better, judgement.reason)
      assert.strictEqual(generic, best)
    }))

  it.effect("Chinese: better only for new relevant content", () =>
    Effect.sync(() => {
      const question = "广茂铁路哪一年全线通车？"
      const first = "广茂铁路是中国广东省境内的一条铁路，由广州至茂名，全长364.6公里。"
      const next = updateNote(question, first, guangmao)
      assert.include(next, "1991年全线通车")
      assert.isTrue(judgeNotes(question, first, next).better)
      assert.isFalse(judgeNotes(question, next, next).better)
    }))
})
