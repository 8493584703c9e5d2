import { Parse } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("reply parsers", () => {
  it.effect("paper judge: JSON slice, else the substring rule", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Parse.parseJudgePaper("```json\n{\"status\": \"True\"}\n```"), {
        better: true,
        parsed: "json"
      })
      assert.deepStrictEqual(Parse.parseJudgePaper("Here: {\"status\": \"False\"} done"), {
        better: false,
        parsed: "json"
      })
      assert.deepStrictEqual(Parse.parseJudgePaper("It is TRUE that note 2 is better"), {
        better: true,
        parsed: "fallback"
      })
      assert.deepStrictEqual(Parse.parseJudgePaper("{broken"), { better: false, parsed: "fallback" })
    }))

  it.effect("deepnote judge: one word, JSON, an unambiguous word, else unreadable", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Parse.parseJudgeWord("True"), { better: true, parsed: "structured" })
      assert.deepStrictEqual(Parse.parseJudgeWord("\"False\"."), { better: false, parsed: "structured" })
      assert.deepStrictEqual(Parse.parseJudgeWord("<think>hmm true?</think>{\"status\":\"False\"}"), {
        better: false,
        parsed: "json"
      })
      assert.deepStrictEqual(Parse.parseJudgeWord("I would say false here"), { better: false, parsed: "fallback" })
      assert.isUndefined(Parse.parseJudgeWord("true or false, hard to say"))
      assert.isUndefined(Parse.parseJudgeWord("no idea"))
    }))

  it.effect("planner: JSON object, bare array, or cleaned lines", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Parse.parseQueriesJson("{\"queries\": [\"a b\", \" c \"]}"), ["a b", "c"])
      assert.deepStrictEqual(Parse.parseQueriesJson("Sure: [\"x\", \"y\"]"), ["x", "y"])
      assert.isUndefined(Parse.parseQueriesJson("1. x\n2. y"))
      assert.deepStrictEqual(Parse.parseQueryLines("1. Who is X?\n2) Where is Y?\n- \"Z\"\nQuery 3: W\n1. Who is X?"), [
        "Who is X?",
        "Where is Y?",
        "Z",
        "W"
      ])
      assert.deepStrictEqual(Parse.parseQueryLines("（1）鲁迅的籍贯\n2、绍兴在哪里"), ["鲁迅的籍贯", "绍兴在哪里"])
    }))

  it.effect("answers: short answers lose labels and quotes; yes/no in both languages", () =>
    Effect.sync(() => {
      assert.strictEqual(Parse.parseShortAnswer("\n Answer: \"Cincinnati\"\nbecause…"), "Cincinnati")
      assert.strictEqual(Parse.parseShortAnswer("答案：绍兴"), "绍兴")
      assert.strictEqual(Parse.parseYesNo("Yes."), "yes")
      assert.strictEqual(Parse.parseYesNo("no, it was not"), "no")
      assert.strictEqual(Parse.parseYesNo("是"), "yes")
      assert.strictEqual(Parse.parseYesNo("不是"), "no")
      assert.isUndefined(Parse.parseYesNo("maybe"))
    }))
})
