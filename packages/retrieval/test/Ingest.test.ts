import { Home } from "@deepnote/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { Collections, type IngestProgress, passageId } from "../src/index.js"
import { headOf, TempCollections, writeFile } from "./support/TempHome.js"

const sharedData = fileURLToPath(new URL("../../../../shared/data", import.meta.url))

const corpusIds = new Set(
  Fs.readFileSync(`${sharedData}/corpus/en-multihop.jsonl`, "utf8").split("\n").filter((l) => l.length > 0)
    .map((l) => (JSON.parse(l) as { id: string }).id)
)

describe("ingestion of the shared data formats", () => {
  it.scoped("reads each QA format's paragraphs with the shared corpus ids", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const files = {
        ircot: headOf("hotpotqa/dev-300.ircot.jsonl", 5, home.root),
        hotpotqa: headOf("hotpotqa/hard-100.hotpot.jsonl", 5, home.root),
        musique: headOf("musique/dev-100.musique.jsonl", 5, home.root),
        "2wiki": headOf("2wikimultihopqa/dev-84.2wiki.jsonl", 5, home.root)
      }
      for (const [format, file] of Object.entries(files)) {
        const summary = yield* collections.index(`qa-${format}`, [file])
        assert.strictEqual(summary.invalid, 0)
        assert.isAbove(summary.added, 20, format)
        assert.strictEqual(summary.files[0]!.format, format === "2wiki" ? "hotpotqa" : format)
        const stored = yield* collections.search(`qa-${format}`, "film director born", { limit: 50 })
        assert.isAbove(stored.length, 0)
        for (const hit of stored) {
          assert.isTrue(corpusIds.has(hit.id), `${format}: ${hit.id} ${hit.title} is not a corpus id`)
        }
      }
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("reads documents JSONL with metadata and the Chinese corpus", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const en = headOf("corpus/en-multihop.jsonl", 300, home.root)
      const zh = headOf("corpus/zh-cmrc2018.jsonl", 50, home.root)
      const custom = writeFile(
        home.root,
        "docs.jsonl",
        [
          JSON.stringify({ text: "A passage without id or title.", year: 2024 }),
          JSON.stringify({ id: 7, title: "Numbered", text: "Numeric ids become strings." })
        ].join("\r\n")
      )
      const summary = yield* collections.index("docs", [en, zh, custom])
      assert.strictEqual(summary.added, 352)
      assert.strictEqual(summary.documents, 352)
      const got = yield* collections.get("docs", [
        "p5f8107880e10",
        "DEV_0",
        "7",
        passageId("", "A passage without id or title.")
      ])
      assert.deepStrictEqual(got.map((d) => d.id), [
        "p5f8107880e10",
        "DEV_0",
        "7",
        passageId("", "A passage without id or title.")
      ])
      assert.strictEqual(got[1]!.title, "战国无双3")
      const info = yield* collections.info("docs")
      assert.strictEqual(info.meta.schema_version, "1")
      assert.strictEqual(info.files.length, 3)
      assert.isTrue(info.files.every((f) => f.done))
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("splits text and markdown into bounded passages titled by heading", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about glaciers and fjords.`).join(
        " "
      )
      const md = writeFile(
        home.root,
        "guide.md",
        `# Glaciers\n\nIce flows slowly.\nIt carves valleys.\n\n${long}\n\n## Fjords\n\nA fjord is a drowned glacial valley.\n\n\`\`\`\n# not a heading\n\`\`\`\n`
      )
      const txt = writeFile(
        home.root,
        "notes.txt",
        "First paragraph about volcanoes.\n\nSecond paragraph about lava.\n"
      )
      const summary = yield* collections.index("text", [md, txt], { maxChars: 300 })
      assert.deepStrictEqual(summary.files.map((f) => f.format), ["markdown", "text"])
      const hits = yield* collections.search("text", "drowned glacial valley", { limit: 10 })
      assert.strictEqual(hits[0]!.title, "Fjords")
      assert.include(hits[0]!.text, "# not a heading")
      const glaciers = yield* collections.search("text", "glaciers fjords sentence", { limit: 50 })
      assert.isAbove(glaciers.length, 4)
      for (const h of glaciers) assert.isAtMost(h.text.length, 300)
      const lava = yield* collections.search("text", "lava", { limit: 1 })
      assert.strictEqual(lava[0]!.title, "notes")
      assert.strictEqual(lava[0]!.text, "First paragraph about volcanoes.\nSecond paragraph about lava.")
    }).pipe(Effect.provide(TempCollections)))
})

describe("bad input", () => {
  const badFile = (dir: string) =>
    writeFile(
      dir,
      "bad.jsonl",
      [
        JSON.stringify({ id: "a", title: "Alpha", text: "alpha text" }),
        "{not json",
        JSON.stringify({ id: "b", title: "Beta" }),
        "",
        JSON.stringify({ id: "c", title: 3, text: "gamma" }),
        JSON.stringify({ id: "d", title: "Delta", text: "delta text" })
      ].join("\n")
    )

  it.scoped("reports invalid records with file:line and field, and skips them", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const file = badFile((yield* Home).root)
      const summary = yield* collections.index("bad", [file])
      assert.strictEqual(summary.added, 2)
      assert.strictEqual(summary.invalid, 3)
      assert.deepStrictEqual(summary.errors.map((e) => [e.line, e.field]), [[2, undefined], [3, "text"], [5, "title"]])
      assert.include(summary.errors[0]!.message, "invalid JSON")
      assert.strictEqual(summary.errors[1]!.file, file)
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("strict mode rejects the ingest naming file:line and field", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const file = badFile((yield* Home).root)
      const error = yield* Effect.flip(collections.index("strict", [file], { strict: true }))
      assert.strictEqual(error._tag, "InvalidRecord")
      assert.include(error.message, `${file}:2`)
      const bad = writeFile((yield* Home).root, "bad2.jsonl", JSON.stringify({ id: "x", text: 5 }) + "\n")
      const second = yield* Effect.flip(collections.index("strict2", [bad], { strict: true }))
      assert.strictEqual(second.message, `${bad}:1: text: Expected string, actual 5`)
      assert.strictEqual((yield* collections.info("strict2")).documents, 0)
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("a missing file is a clear error and nothing is written", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const good = headOf("corpus/en-multihop.jsonl", 10, home.root)
      const error = yield* Effect.flip(collections.index("missing", [good, "/nope/corpus.jsonl"]))
      assert.strictEqual(error._tag, "CorpusFileNotFound")
      assert.strictEqual(error.message, "corpus file not found: /nope/corpus.jsonl")
      assert.strictEqual((yield* collections.info("missing")).documents, 0)
      const notFound = yield* Effect.flip(collections.search("never-built", "x", { limit: 1 }))
      assert.strictEqual(notFound._tag, "CollectionNotFound")
      const badName = yield* Effect.flip(collections.index("../escape", [good]))
      assert.strictEqual(badName._tag, "InvalidCollectionName")
    }).pipe(Effect.provide(TempCollections)))
})

describe("resumable ingestion", () => {
  it.scoped("a failed batch leaves nothing half-written and a rerun continues after the last committed batch", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const lines = Fs.readFileSync(`${sharedData}/corpus/en-multihop.jsonl`, "utf8").split("\n").slice(0, 500)
      lines.splice(250, 0, JSON.stringify({ id: "broken" }))
      const file = writeFile(home.root, "big.jsonl", lines.join("\n") + "\n")
      const crash = yield* Effect.flip(collections.index("resume", [file], { strict: true, batchSize: 100 }))
      assert.strictEqual(crash._tag, "InvalidRecord")
      const after = yield* collections.info("resume")
      assert.strictEqual(after.documents, 200, "batches 1–2 committed, batch 3 (with line 251) not at all")
      assert.deepStrictEqual([after.files[0]!.line, after.files[0]!.done], [200, false])
      const progress: Array<IngestProgress> = []
      const rerun = yield* collections.index("resume", [file], {
        batchSize: 100,
        onProgress: (p) => Effect.sync(() => progress.push(p))
      })
      assert.strictEqual(rerun.files[0]!.resumedFromLine, 200)
      assert.strictEqual(rerun.added, 300)
      assert.strictEqual(rerun.skipped, 0)
      assert.deepStrictEqual(rerun.errors.map((e) => e.line), [251])
      assert.strictEqual(rerun.documents, 500)
      assert.strictEqual(progress[0]!.line, 300)
      const again = yield* collections.index("resume", [file])
      assert.deepStrictEqual([again.files[0]!.status, again.added], ["unchanged", 0])
    }).pipe(Effect.provide(TempCollections)))

  it.scoped("an interrupted ingest resumes; re-adding a changed file deduplicates by id", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const file = headOf("corpus/en-multihop.jsonl", 600, home.root)
      const fiber = yield* Effect.fork(collections.index("interrupt", [file], {
        batchSize: 100,
        onProgress: (p) => (p.line >= 300 ? Effect.interrupt : Effect.void)
      }))
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.strictEqual((yield* collections.info("interrupt")).documents, 300)
      Fs.appendFileSync(file, JSON.stringify({ id: "extra", title: "Extra", text: "one more passage" }) + "\n")
      const rerun = yield* collections.index("interrupt", [file])
      assert.deepStrictEqual([rerun.files[0]!.resumedFromLine, rerun.added, rerun.skipped], [0, 301, 300])
      assert.strictEqual(rerun.documents, 601)
    }).pipe(Effect.provide(TempCollections)))
})
