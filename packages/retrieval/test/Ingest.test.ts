import { Home } from "@deepnote-rag/core"
import { assert, it } from "@effect/vitest"
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

it.layer(TempCollections)("ingestion of the shared data formats", (it) => {
  it.effect("reads each QA format's paragraphs with the shared corpus ids", () =>
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
    }))

  it.effect("reads documents JSONL with metadata and the Chinese corpus", () =>
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
      assert.strictEqual(info.meta.schema_version, "5")
      assert.strictEqual(info.files.length, 3)
      assert.isTrue(info.files.every((f) => f.done))
    }))

  it.effect("splits text and markdown into bounded passages titled by heading", () =>
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
    }))
})

it.layer(TempCollections)("bad input", (it) => {
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

  it.effect("reports invalid records with file:line and field, and skips them", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const file = badFile((yield* Home).root)
      const summary = yield* collections.index("bad", [file])
      assert.strictEqual(summary.added, 2)
      assert.strictEqual(summary.invalid, 3)
      assert.deepStrictEqual(summary.errors.map((e) => [e.line, e.field]), [[2, undefined], [3, "text"], [5, "title"]])
      assert.include(summary.errors[0]!.message, "invalid JSON")
      assert.strictEqual(summary.errors[1]!.file, file)
    }))

  it.effect("strict mode rejects the ingest naming file:line and field", () =>
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
    }))

  it.effect("a missing file is a clear error and nothing is written", () =>
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
    }))
})

/** No raw control character (ESC, NUL, …) may reach the terminal through a message. */
const assertPrintable = (message: string) =>
  // eslint-disable-next-line no-control-regex
  assert.notMatch(message, /[\u0000-\u001f\u007f-\u009f]/u, JSON.stringify(message))

it.layer(TempCollections)("files that are not text corpora", (it) => {
  const elf = Buffer.concat([
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
    Buffer.from("\x1b[2J\x1b[31mpwned\n.text\u0000.data\n")
  ])

  it.effect("a binary file named .txt is refused before anything is indexed", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const good = writeFile(home.root, "good.txt", "A fine paragraph about volcanoes.\n")
      const binary = writeFile(home.root, "prog\u001b[7m.txt", elf)
      const error = yield* Effect.flip(collections.index("binary", [good, binary]))
      assert.strictEqual(error._tag, "InvalidCorpusFile")
      assert.include(error.message, "looks binary (NUL bytes / invalid UTF-8: NUL byte at offset 7)")
      assert.include(error.message, "prog\\x1b[7m.txt", "the path is shown with its control byte escaped")
      assertPrintable(error.message)
      assert.strictEqual((yield* collections.info("binary")).documents, 0)
    }))

  it.effect("text that is not UTF-8, or turns binary after the first 64 KiB, is refused", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const latin1 = writeFile(home.root, "latin1.md", Buffer.from("# Caf\xe9\n\nCr\xe8me br\xfbl\xe9e.\n", "latin1"))
      const first = yield* Effect.flip(collections.index("latin1", [latin1]))
      assert.include(first.message, "looks binary")
      assert.include(first.message, "invalid UTF-8")
      const text = "A sentence about glaciers and the valleys they carve.\n\n".repeat(2000)
      const late = writeFile(home.root, "late.txt", Buffer.concat([Buffer.from(text), elf]))
      const second = yield* Effect.flip(collections.index("late", [late]))
      assert.strictEqual(second._tag, "InvalidCorpusFile")
      assert.include(second.message, `line ${text.split("\n").length}`)
      assertPrintable(second.message)
    }))

  it.effect("a directory is \"not a file\", distinct from \"not found\"", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const directory = yield* Effect.flip(collections.index("dir", [home.root]))
      assert.strictEqual(directory.message, `not a file: ${home.root} is a directory`)
      const missing = yield* Effect.flip(collections.index("dir", [`${home.root}/nope.txt`]))
      assert.strictEqual(missing.message, `corpus file not found: ${home.root}/nope.txt`)
    }))

  it.effect("bad JSON lines with control bytes are reported escaped, and binary lines skipped", () =>
    Effect.gen(function*() {
      const collections = yield* Collections
      const home = yield* Home
      const file = writeFile(
        home.root,
        "mixed.jsonl",
        Buffer.concat([
          Buffer.from(JSON.stringify({ id: "a", title: "Alpha", text: "alpha text" }) + "\n"),
          Buffer.from("\x1b]0;title\x07{\"id\": \x1b[31m\n"),
          Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
          Buffer.from(JSON.stringify({ id: "b", title: "Beta", text: "beta text" }) + "\n")
        ])
      )
      const summary = yield* collections.index("mixed", [file])
      assert.deepStrictEqual([summary.added, summary.invalid], [2, 2])
      assert.deepStrictEqual(summary.errors.map((e) => e.line), [2, 3])
      assert.include(summary.errors[1]!.message, "not UTF-8 text")
      for (const e of summary.errors) assertPrintable(e.message)
      const strict = yield* Effect.flip(collections.index("mixed-strict", [file], { strict: true }))
      assertPrintable(strict.message)
    }))
})

it.layer(TempCollections)("resumable ingestion", (it) => {
  it.effect("a failed batch leaves nothing half-written and a rerun continues after the last committed batch", () =>
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
    }))

  it.effect("an interrupted ingest resumes; re-adding a changed file deduplicates by id", () =>
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
    }))
})
