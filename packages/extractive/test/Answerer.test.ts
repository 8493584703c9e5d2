import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { answerFrom, comparisonOptions, detectAnswerType, isYesNoQuestion, unknownAnswer } from "../src/index.js"
import { corliss, guangmao } from "./fixtures.js"

const evidence = { _tag: "Passages", passages: [corliss.film, corliss.actress] } as const
const zh = { _tag: "Passages", passages: guangmao } as const

describe("answer types", () => {
  it.effect("English wh-phrases", () =>
    Effect.sync(() => {
      assert.strictEqual(detectAnswerType("Who directed Jaws?", "en"), "person")
      assert.strictEqual(detectAnswerType("Where is the company headquartered?", "en"), "place")
      assert.strictEqual(detectAnswerType("In what year was it founded?", "en"), "date")
      assert.strictEqual(detectAnswerType("How many copies were sold?", "en"), "number")
      assert.strictEqual(detectAnswerType("Which film starred her?", "en"), "entity")
    }))

  it.effect("Chinese question words", () =>
    Effect.sync(() => {
      assert.strictEqual(detectAnswerType("这部电影是谁导演的？", "zh"), "person")
      assert.strictEqual(detectAnswerType("公司总部在哪里？", "zh"), "place")
      assert.strictEqual(detectAnswerType("铁路哪一年通车？", "zh"), "date")
      assert.strictEqual(detectAnswerType("全长多少公里？", "zh"), "number")
    }))

  it.effect("yes/no and choice questions", () =>
    Effect.sync(() => {
      assert.isTrue(isYesNoQuestion("Are Local H and For Against both from the United States?", "en"))
      assert.isFalse(isYesNoQuestion("Is Gasherbrum II or Nuptse closer to Everest?", "en"))
      assert.isTrue(isYesNoQuestion("广茂铁路是否位于广东省？", "zh"))
      assert.deepStrictEqual(comparisonOptions("Who was born first, Erika Jayne or Marco Da Silva", "en"), [
        "Erika Jayne",
        "Marco Da Silva"
      ])
      assert.deepStrictEqual(
        comparisonOptions("Which band, Letters to Cleo or Screaming Trees, had more members?", "en"),
        [
          "Letters to Cleo",
          "Screaming Trees"
        ]
      )
    }))
})

describe("answerFrom (English, hand-made passages)", () => {
  it.effect("person", () =>
    Effect.sync(() =>
      assert.strictEqual(answerFrom("Who played Corliss Archer in Kiss and Tell?", evidence), "Shirley Temple")
    ))

  it.effect("date, and the year alone for 'what year'", () =>
    Effect.sync(() => {
      assert.strictEqual(answerFrom("When was Shirley Temple born?", evidence), "April 23, 1928")
      assert.strictEqual(answerFrom("In what year was the comedy Kiss and Tell released?", evidence), "1945")
    }))

  it.effect("place", () =>
    Effect.sync(() => {
      const passages = [{
        title: "Tata Consultancy Services",
        text: "Tata Consultancy Services is an IT company headquartered in Mumbai, India."
      }]
      assert.strictEqual(
        answerFrom("Where is Tata Consultancy Services headquartered?", { _tag: "Passages", passages }),
        "Mumbai"
      )
    }))

  it.effect("number", () =>
    Effect.sync(() => {
      const note = "Roald Dahl: His books have sold more than 250 million copies worldwide."
      assert.strictEqual(answerFrom("How many copies of Roald Dahl's books sold?", note), "250 million")
    }))

  it.effect("yes/no by coverage", () =>
    Effect.sync(() => {
      assert.strictEqual(answerFrom("Is Kiss and Tell an American comedy film?", evidence), "yes")
      assert.strictEqual(answerFrom("Was Shirley Temple a Canadian astronaut?", evidence), "no")
      assert.strictEqual(answerFrom("Kiss and Tell is a comedy film.", evidence, { task: "yesno" }), "yes")
    }))

  it.effect("comparison: chooses between the two named options", () =>
    Effect.sync(() => {
      const passages = [
        { title: "Wavves", text: "Wavves is an American rock band from San Diego, California, formed in 2008." },
        { title: "Social Code", text: "Social Code is a Canadian rock band formed in 1999 in Edmonton." }
      ]
      const e = { _tag: "Passages", passages } as const
      assert.strictEqual(answerFrom("Which band was formed first, Wavves or Social Code?", e), "Social Code")
      assert.strictEqual(answerFrom("Which band was formed more recently, Wavves or Social Code?", e), "Wavves")
      assert.strictEqual(answerFrom("Which band is from Canada, Wavves or Social Code?", e), "Social Code")
    }))

  it.effect("no evidence gives the fixed honest reply; longform gives sentences", () =>
    Effect.sync(() => {
      assert.strictEqual(answerFrom(corliss.question, { _tag: "None" }), unknownAnswer.en)
      assert.strictEqual(answerFrom("广茂铁路有多长？", ""), unknownAnswer.zh)
      const long = answerFrom(corliss.question, evidence, { task: "longform" })
      assert.include(long, "Corliss Archer")
      assert.isAtMost(long.split(/(?<=\.) /u).length, 3)
    }))
})

describe("answerFrom (Chinese, hand-made passages)", () => {
  it.effect("number, date, organisation, aligned span and yes/no", () =>
    Effect.sync(() => {
      assert.strictEqual(answerFrom("广茂铁路全长多少公里？", zh), "364.6公里")
      assert.strictEqual(answerFrom("广茂铁路哪一年全线通车？", zh), "1991")
      assert.strictEqual(answerFrom("广茂铁路由哪家公司管理运营？", zh), "三茂铁路股份有限公司")
      assert.strictEqual(answerFrom("茂名被称为什么？", zh), "南方油城")
      assert.strictEqual(answerFrom("广茂铁路是否位于广东省？", zh), "yes")
    }))
})

describe("determinism", () => {
  it.effect("same input, same output", () =>
    Effect.sync(() => {
      for (const q of [corliss.question, "Who played Corliss Archer in Kiss and Tell?", "广茂铁路全长多少公里？"]) {
        const e = q.includes("铁路") ? zh : evidence
        assert.strictEqual(answerFrom(q, e), answerFrom(q, e))
      }
    }))
})
