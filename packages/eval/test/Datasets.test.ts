import { FileSystem } from "@effect/platform"
import { NodeContext, NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { formatBadLine, loadDataset } from "../src/index.js"

const data = fileURLToPath(new URL("../../../../shared/data", import.meta.url))
const load = (...args: Parameters<typeof loadDataset>) =>
  loadDataset(...args).pipe(Effect.provide(NodeFileSystem.layer))

const tempFile = (name: string, content: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "deepnote-eval-" })
    const file = Path.join(dir, name)
    yield* fs.writeFileString(file, content)
    return file
  }).pipe(Effect.provide(NodeContext.layer), Effect.orDie)

describe("loadDataset on the real files", () => {
  const cases = [
    ["hotpotqa/dev-300.ircot.jsonl", "ircot", 300],
    ["hotpotqa/hard-100.hotpot.jsonl", "hotpotqa", 100],
    ["musique/dev-100.musique.jsonl", "musique", 100],
    ["2wikimultihopqa/dev-84.2wiki.jsonl", "2wiki", 84],
    ["cmrc2018/dev-questions.jsonl", "cmrc2018", 2135]
  ] as const
  for (const [file, format, count] of cases) {
    it.live(`${file}: ${count} questions, detected as ${format}`, () =>
      Effect.gen(function*() {
        const loaded = yield* load(Path.join(data, file))
        assert.strictEqual(loaded.format, format)
        assert.strictEqual(loaded.questions.length, count)
        assert.deepStrictEqual(loaded.badLines, [])
        for (const q of loaded.questions) {
          assert.isAbove(q.answers?.length ?? 0, 0, q.id)
          assert.isAbove(q.goldTitles?.length ?? 0, 0, q.id)
          assert.strictEqual(q.task, "multihop")
          assert.strictEqual(q.language, format === "cmrc2018" ? "zh" : "en", q.id)
        }
      }))
  }

  it.live("maps each format's fields", () =>
    Effect.gen(function*() {
      const ircot = (yield* load(Path.join(data, "hotpotqa/dev-300.ircot.jsonl"), { limit: 1 })).questions
      assert.strictEqual(ircot.length, 1)
      assert.strictEqual(ircot[0]!.id, "5a8c7595554299585d9e36b6")
      assert.deepStrictEqual(ircot[0]!.answers, ["Chief of Protocol"])
      assert.include(ircot[0]!.goldTitles ?? [], "Shirley Temple")
      const hotpot = (yield* load(Path.join(data, "hotpotqa/hard-100.hotpot.jsonl"), { limit: 1 })).questions[0]!
      assert.deepStrictEqual([hotpot.id, hotpot.answers, hotpot.goldTitles], [
        "5a7f6fd75542992e7d278cfa",
        ["Rush"],
        ["Nobody's Hero", "Neil Peart"]
      ])
      const musique = (yield* load(Path.join(data, "musique/dev-100.musique.jsonl"), { limit: 1 })).questions[0]!
      assert.deepStrictEqual(musique.answers, ["Sir Francis Baring, 1st Baronet"])
      assert.strictEqual(musique.goldTitles?.length, 2)
      const cmrc = yield* load(Path.join(data, "cmrc2018/dev-questions.jsonl"), { limit: 2 })
      assert.deepStrictEqual(cmrc.questions.map((q) => [q.id, q.answers, q.goldTitles]), [
        ["DEV_0_QUERY_0", ["光荣和ω-force"], ["DEV_0"]],
        ["DEV_0_QUERY_1", ["任天堂游戏谜之村雨城", "村雨城"], ["DEV_0"]]
      ])
      assert.strictEqual(cmrc.records, 2)
    }))
})

describe("bad records", () => {
  const lines = [
    JSON.stringify({ id: "a", question: "Who wrote Hamlet?", answer: "Shakespeare" }),
    "{not json",
    "",
    JSON.stringify({ id: "b", answers: ["x"] }),
    JSON.stringify({ id: "c", question: "   " }),
    JSON.stringify({ id: "d", question: "Is it?", answers: [1] }),
    JSON.stringify({ id: "a", question: "Again?" }),
    JSON.stringify({ question: "北京大学在哪里？", answers: ["北京"], task: "multihop" })
  ].join("\n")

  it.scopedLive("are skipped and reported with file:line and field", () =>
    Effect.gen(function*() {
      const file = yield* tempFile("plain.jsonl", lines)
      const loaded = yield* load(file, { onBadLine: "skip" })
      assert.strictEqual(loaded.format, "plain")
      assert.deepStrictEqual(loaded.questions.map((q) => q.id), ["a", "line-8"])
      assert.strictEqual(loaded.questions[1]!.language, "zh")
      assert.deepStrictEqual(loaded.questions[0]!.answers, ["Shakespeare"])
      assert.deepStrictEqual(loaded.badLines.map((b) => [b.line, b.field]), [
        [2, undefined],
        [4, "question"],
        [5, "question"],
        [6, "answers[0]"],
        [7, "id"]
      ])
      assert.strictEqual(formatBadLine(loaded.badLines[1]!), `${file}:4: question: is missing`)
      assert.include(formatBadLine(loaded.badLines[0]!), `${file}:2: invalid JSON`)
      assert.include(formatBadLine(loaded.badLines[2]!), "the question is empty")
    }))

  it.scopedLive("fail the load by default, naming file:line and field", () =>
    Effect.gen(function*() {
      const file = yield* tempFile("plain.jsonl", lines.split("\n").filter((_, i) => i !== 1).join("\n"))
      const error = yield* Effect.flip(load(file))
      assert.strictEqual(error._tag, "DatasetError")
      assert.strictEqual(error.message, `${file}:3: question: is missing`)
    }))

  it.scopedLive("a forced format checks every record against it", () =>
    Effect.gen(function*() {
      const file = yield* tempFile("x.jsonl", JSON.stringify({ id: "a", question: "q?", answer: "x" }))
      const error = yield* Effect.flip(load(file, { format: "musique" }))
      assert.strictEqual(error.message, `${file}:1: paragraphs: is missing`)
      const unknown = yield* tempFile("y.jsonl", JSON.stringify({ foo: 1 }))
      assert.include((yield* Effect.flip(load(unknown))).message, "cannot detect the dataset format")
      const missing = yield* Effect.flip(load(Path.join(Path.dirname(file), "nope.jsonl")))
      assert.include(missing.message, "cannot read")
    }))

  it.scopedLive("JSON array files (official releases) are read too, with record numbers", () =>
    Effect.gen(function*() {
      const records = Fs.readFileSync(Path.join(data, "hotpotqa/hard-100.hotpot.jsonl"), "utf8").trim().split("\n")
        .slice(0, 3)
      const file = yield* tempFile("dev.json", `[${records.join(",")}]`)
      const loaded = yield* load(file, { limit: 2 })
      assert.strictEqual(loaded.format, "hotpotqa")
      assert.strictEqual(loaded.questions.length, 2)
    }))
})
