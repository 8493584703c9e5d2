import { decidePrompt, decomposePrompt, parseFollowUp, parsePrompt, promptText } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("deeprag prompts and replies", () => {
  it.effect("a follow-up is one query; the final answer ends the chain", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(parseFollowUp("Follow up: Who directed Jaws?"), { queries: ["Who directed Jaws?"] })
      assert.deepStrictEqual(parseFollowUp("Follow-up：鲁迅出生在哪里？"), { queries: ["鲁迅出生在哪里？"] })
      assert.deepStrictEqual(parseFollowUp("So the final answer is: Cincinnati"), { queries: [] })
      assert.strictEqual(parseFollowUp("Who directed Jaws?"), undefined)
    }))

  it.effect("both prompts carry the sections the simulator reads, in both languages", () =>
    Effect.sync(() => {
      for (const language of ["en", "zh"] as const) {
        const next = parsePrompt(
          promptText(decomposePrompt(language, "Q?", "Follow up: a\nIntermediate answer: b", ["a"]))
        )
        assert.strictEqual(next.language, language)
        assert.strictEqual(next.question, "Q?")
        assert.strictEqual(next.note, "Follow up: a\nIntermediate answer: b")
        assert.deepStrictEqual(next.queries, ["a"])
        const decide = parsePrompt(promptText(decidePrompt(language, "sub?", "chain")))
        assert.strictEqual(decide.question, "sub?")
        assert.strictEqual(decide.note, "chain")
      }
      assert.include(promptText(decomposePrompt("en", "Q?", "", [])), "So the final answer is")
    }))
})
