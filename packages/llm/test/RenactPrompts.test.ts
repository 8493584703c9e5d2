import { actPrompt, notesPrompt, parseAction, parseNotesReply, parsePrompt, promptText } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("renact prompts and replies", () => {
  it.effect("an Action is a search with its query or a finish with none", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(
        parseAction("Thought: need the founding year.\nAction: search[Arthur's Magazine founded]"),
        {
          queries: ["Arthur's Magazine founded"]
        }
      )
      assert.deepStrictEqual(parseAction("Thought: enough.\nAction: finish[Arthur's Magazine]"), { queries: [] })
      assert.deepStrictEqual(parseAction("Action: Search[ 鲁迅 出生地 ]"), { queries: ["鲁迅 出生地"] })
      // the Thought may mention an action; the Action line decides
      assert.deepStrictEqual(parseAction("Thought: I could finish[x] later.\nAction: search[y]"), { queries: ["y"] })
      assert.strictEqual(parseAction("Arthur's Magazine founded"), undefined)
      assert.strictEqual(parseAction("Action: search[]"), undefined)
    }))

  it.effect("a notes reply is YES#text or NO#reason", () =>
    Effect.sync(() => {
      assert.strictEqual(
        parseNotesReply("YES# Arthur's Magazine was founded in 1844."),
        "Arthur's Magazine was founded in 1844."
      )
      assert.strictEqual(parseNotesReply("NO#unrelated"), "")
      assert.strictEqual(parseNotesReply("yes#多行\n笔记"), "多行\n笔记")
      assert.strictEqual(parseNotesReply("Arthur's Magazine"), undefined)
    }))

  it.effect("both prompts carry the sections the simulator reads, in both languages", () =>
    Effect.sync(() => {
      for (const language of ["en", "zh"] as const) {
        const act = parsePrompt(promptText(actPrompt(language, "Q?", "notes", ["first search"])))
        assert.strictEqual(act.language, language)
        assert.strictEqual(act.question, "Q?")
        assert.deepStrictEqual(act.queries, ["first search"])
        const notes = parsePrompt(promptText(notesPrompt(language, "query", "old notes", { title: "T", text: "Doc." })))
        assert.strictEqual(notes.note, "old notes")
        assert.deepStrictEqual(notes.passages, [{ title: "T", text: "Doc." }])
      }
      assert.include(promptText(actPrompt("en", "Q?", "", [])), "finish[")
      assert.include(promptText(notesPrompt("zh", "q", "", { title: "", text: "x" })), "YES#")
    }))
})
