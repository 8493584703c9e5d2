import { Note } from "@deepnote-rag/core"
import {
  answerPrompt,
  initPrompt,
  instructionsFor,
  judgePrompt,
  layoutOf,
  parsePrompt,
  planPrompt,
  promptText,
  sharedSystem,
  updatePrompt
} from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

const passages = [{ title: "Jaws (film)", text: "Jaws is a 1975 film." }, {
  title: "",
  text: "Untitled text.\nSecond line."
}]

describe("prompts", () => {
  it.effect("sections round-trip through the parser the simulator uses (en)", () =>
    Effect.sync(() => {
      const msgs = updatePrompt("en", "Who directed Jaws?", "Jaws is a film.", passages)
      assert.strictEqual(msgs[0]!.role, "system")
      const parsed = parsePrompt(promptText(msgs))
      assert.strictEqual(parsed.language, "en")
      assert.strictEqual(parsed.question, "Who directed Jaws?")
      assert.strictEqual(parsed.note, "Jaws is a film.")
      assert.deepStrictEqual(parsed.passages, [{ title: "Jaws (film)", text: "Jaws is a 1975 film." }, {
        title: "",
        text: "Untitled text.\nSecond line."
      }])
    }))

  it.effect("sections round-trip in Chinese, with the query log and both notes", () =>
    Effect.sync(() => {
      const plan = parsePrompt(promptText(planPrompt("zh", "鲁迅是哪里人？", "鲁迅是作家。", ["鲁迅 籍贯"], 2, "json")))
      assert.strictEqual(plan.language, "zh")
      assert.deepStrictEqual(plan.queries, ["鲁迅 籍贯"])
      const judge = parsePrompt(promptText(judgePrompt("zh", "问题？", "旧笔记。", "新笔记。", "word")))
      assert.strictEqual(judge.bestNote, "旧笔记。")
      assert.strictEqual(judge.newNote, "新笔记。")
      assert.deepStrictEqual(parsePrompt(promptText(planPrompt("en", "q", "n", [], 2, "text"))).queries, [])
    }))

  it.effect("adaptive-note words its collector and reviewer its own way, in both languages; others keep the shared set", () =>
    Effect.sync(() => {
      for (const language of ["en", "zh"] as const) {
        const shared = instructionsFor(language)
        assert.strictEqual(instructionsFor(language, "deepnote"), shared)
        assert.strictEqual(instructionsFor(language, "paper"), shared)
        const own = instructionsFor(language, "adaptive-note")
        for (const key of ["init", "update", "judgeJson", "judgeWord"] as const) {
          assert.notStrictEqual(own[key], shared[key], `${language} ${key}`)
        }
        assert.notStrictEqual(own.planJson(2), shared.planJson(2))
        assert.strictEqual(own.answer, shared.answer)
        // the sections the simulator reads are the same
        const init = parsePrompt(promptText(initPrompt(language, "Q?", passages, "adaptive-note")))
        assert.strictEqual(init.question, "Q?")
        assert.strictEqual(init.passages?.length, 2)
        const judge = parsePrompt(promptText(judgePrompt(language, "Q?", "old", "new", "word", "adaptive-note")))
        assert.strictEqual(judge.bestNote, "old")
        assert.strictEqual(judge.newNote, "new")
      }
      assert.include(promptText(planPrompt("en", "q", "n", [], 2, "json", "adaptive-note")), `{"queries"`)
      assert.include(promptText(updatePrompt("zh", "问题？", "记忆。", passages, "adaptive-note")), "可扩展")
    }))

  it.effect("role-first layout (paper, and no profile): instructions, then question, then note, then passages", () =>
    Effect.sync(() => {
      const text = promptText(updatePrompt("en", "Q?", "N.", passages))
      const at = (s: string) => text.indexOf(s)
      assert.isTrue(at("Rewrite the whole note") < at("### Question"))
      assert.isTrue(at("### Question") < at("### Note"))
      assert.isTrue(at("### Note") < at("### Passages"))
      const a = updatePrompt("en", "Q?", "N.", passages)
      const b = updatePrompt("en", "Q?", "N.", passages.slice(0, 1))
      assert.strictEqual(a[0]!.content, b[0]!.content, "instructions do not depend on the inputs")
    }))

  it.effect("answer prompts per task and evidence, in both languages", () =>
    Effect.sync(() => {
      const note = { _tag: "Note" as const, note: new Note({ text: "N." }) }
      assert.include(answerPrompt("en", "yesno", "Q?", note)[0]!.content, "yes or no")
      assert.include(answerPrompt("en", "longform", "Q?", note)[0]!.content, "journalistic")
      assert.include(answerPrompt("en", "multihop", "Q?", { _tag: "Passages", passages: [] })[0]!.content, "passages")
      assert.notInclude(answerPrompt("en", "multihop", "Q?", { _tag: "None" })[1]!.content, "### Note")
      assert.include(answerPrompt("zh", "yesno", "问？", note)[0]!.content, "是")
    }))

  it.effect("shared-prefix layout (deepnote): the roles of one question share the prefix up to their task", () =>
    Effect.sync(() => {
      assert.strictEqual(layoutOf("deepnote"), layoutOf("adaptive-note"))
      assert.notStrictEqual(layoutOf("deepnote"), layoutOf("paper"))
      for (const language of ["en", "zh"] as const) {
        const note = { _tag: "Note" as const, note: new Note({ text: "N." }) }
        const prompts = [
          updatePrompt(language, "Q?", "N.", passages, "deepnote"),
          planPrompt(language, "Q?", "N.", ["q"], 2, "json", "deepnote"),
          judgePrompt(language, "Q?", "N.", "M.", "word", "deepnote"),
          answerPrompt(language, "multihop", "Q?", note, "deepnote")
        ]
        const head = prompts[0]![1]!.content.split("\n### ")
        for (const msgs of prompts) {
          assert.strictEqual(msgs[0]!.content, sharedSystem[language], "one system message for every role")
          const parts = msgs[1]!.content.split("\n### ")
          assert.deepStrictEqual(parts.slice(0, 2), head.slice(0, 2), "question and best note, under one heading")
          assert.match(parts[2]!, language === "en" ? /^Task\n/ : /^任务\n/)
        }
        // the sections read back as the role-first layout's do
        const update = parsePrompt(promptText(prompts[0]!))
        assert.strictEqual(update.question, "Q?")
        assert.strictEqual(update.note, "N.")
        assert.strictEqual(update.passages?.length, 2)
        assert.strictEqual(update.task, instructionsFor(language).update)
        const judge = parsePrompt(promptText(prompts[2]!))
        assert.strictEqual(judge.bestNote, "N.")
        assert.strictEqual(judge.newNote, "M.")
        assert.isUndefined(judge.note)
        assert.deepStrictEqual(parsePrompt(promptText(prompts[1]!)).queries, ["q"])
        assert.strictEqual(parsePrompt(promptText(prompts[3]!)).note, "N.")
      }
    }))

  it.effect("paper keeps the role-first layout: each role's instructions are its system message", () =>
    Effect.sync(() => {
      const msgs = judgePrompt("en", "Q?", "N.", "M.", "json", "paper")
      assert.strictEqual(msgs[0]!.content, instructionsFor("en").judgeJson)
      assert.deepStrictEqual(msgs, judgePrompt("en", "Q?", "N.", "M.", "json"))
      assert.notInclude(msgs[1]!.content, "### Task")
    }))
})
