import { Answer, Passage, PipelineResult, type Question } from "@deepnote-rag/core"
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { goldRecall, isGold, loadDataset } from "../src/index.js"

const data = fileURLToPath(new URL("../../../../shared/data", import.meta.url))

interface CorpusRecord {
  readonly id: string
  readonly title: string
  readonly text: string
}
const corpus: ReadonlyArray<CorpusRecord> = Fs.readFileSync(Path.join(data, "corpus/en-multihop.jsonl"), "utf8")
  .split("\n").filter((l) => l.trim().length > 0).map((l) => JSON.parse(l) as CorpusRecord)

const byTitle = new Map<string, Array<CorpusRecord>>()
for (const c of corpus) byTitle.set(c.title, [...(byTitle.get(c.title) ?? []), c])
const titled = (title: string) => byTitle.get(title) ?? []

const squash = (s: string) => s.replace(/\s+/gu, "")

/**
 * The independent count: per supporting paragraph of the raw record, the corpus ids holding it (title equal, text
 * equal up to whitespace — the corpus keeps a few copies that differ only in spacing), by a path that shares no code
 * with `goldRecall`.
 */
const goldIdsFromRaw = (supporting: ReadonlyArray<{ title: string; text: string }>): Array<Set<string>> =>
  supporting.map((s) => new Set(titled(s.title).filter((c) => squash(s.text) === squash(c.text)).map((c) => c.id)))

const asPassage = (c: CorpusRecord) => new Passage({ ...c, source: "corpus", score: 1 })
const traceOf = (question: Question, read: ReadonlyArray<CorpusRecord>) =>
  new PipelineResult({
    questionId: question.id,
    question: question.text,
    profile: "deepnote",
    answer: new Answer({ text: "" }),
    stopReason: "max-step",
    trace: { queries: [], passages: read.map((c, i) => ({ step: i, passage: asPassage(c) })), notes: [] },
    counters: {
      llm: { init: 0, plan: 0, update: 0, judge: 0, answer: 0, total: 0 },
      retrievals: 0,
      steps: 0,
      failures: 0,
      uniquePassages: read.length
    },
    elapsedMs: 0
  })

const rawSupporting = (file: string): Map<string, Array<{ title: string; text: string }>> => {
  const out = new Map<string, Array<{ title: string; text: string }>>()
  for (const line of Fs.readFileSync(Path.join(data, file), "utf8").split("\n")) {
    if (line.trim().length === 0) continue
    const r = JSON.parse(line) as {
      id?: string
      question_id?: string
      paragraphs?: Array<{ title: string; paragraph_text: string; is_supporting?: boolean }>
      contexts?: Array<{ title: string; paragraph_text: string; is_supporting?: boolean }>
    }
    const paragraphs = r.paragraphs ?? r.contexts ?? []
    out.set(
      r.id ?? r.question_id ?? "",
      paragraphs.filter((p) => p.is_supporting === true).map((p) => ({ title: p.title, text: p.paragraph_text }))
    )
  }
  return out
}

describe("gold recall is exact: by passage, never by title alone", () => {
  for (
    const [file, format] of [["musique/dev-100.musique.jsonl", "musique"], [
      "hotpotqa/dev-300.ircot.jsonl",
      "ircot"
    ]] as const
  ) {
    it.live(`${file}: recall agrees with an independent count by corpus passage id`, () =>
      Effect.gen(function*() {
        const loaded = yield* loadDataset(Path.join(data, file), { format }).pipe(Effect.provide(NodeFileSystem.layer))
        const raw = rawSupporting(file)
        let twinsRead = 0
        for (const question of loaded.questions) {
          const perParagraph = goldIdsFromRaw(raw.get(question.id) ?? [])
          assert.isAbove(perParagraph.length, 0, question.id)
          for (const ids of perParagraph) {
            assert.isAbove(ids.size, 0, `${question.id}: its gold passages are in the corpus`)
          }
          const goldIds = new Set(perParagraph.flatMap((ids) => [...ids]))
          const sameTitle = [
            ...new Set(perParagraph.length === 0 ? [] : (raw.get(question.id) ?? []).map((p) => p.title))
          ]
            .flatMap(titled)
          const gold = sameTitle.filter((c) => goldIds.has(c.id))
          // read every other gold passage and every non-gold passage that shares a gold passage's title
          const twins = sameTitle.filter((c) => !goldIds.has(c.id))
          twinsRead += twins.length
          const read = [...gold.filter((_, i) => i % 2 === 0), ...twins]
          const readIds = new Set(read.map((c) => c.id))
          const found = new Set(
            perParagraph.filter((ids) => [...ids].some((id) => readIds.has(id))).map((ids) => [...ids].sort().join())
          )
          const expected = found.size / new Set(perParagraph.map((ids) => [...ids].sort().join())).size
          assert.strictEqual(goldRecall(question, traceOf(question, read)), expected, question.id)
          const marks = isGold(question)
          assert.deepStrictEqual(read.map((c) => marks(asPassage(c))), read.map((c) => goldIds.has(c.id)), question.id)
        }
        if (format === "musique") assert.isAbove(twinsRead, 50, "MuSiQue has many same-title paragraphs")
      }), 60_000)
  }

  for (
    const [file, format] of [["2wikimultihopqa/dev-84.2wiki.jsonl", "2wiki"], [
      "hotpotqa/hard-100.hotpot.jsonl",
      "hotpotqa"
    ]] as const
  ) {
    it.live(
      `${file}: every gold passage (its title and joined sentences) is a corpus passage`,
      () =>
        Effect.gen(function*() {
          const loaded = yield* loadDataset(Path.join(data, file), { format }).pipe(
            Effect.provide(NodeFileSystem.layer)
          )
          for (const question of loaded.questions) {
            const gold = question.goldPassages ?? []
            assert.strictEqual(gold.length, question.goldTitles?.length, question.id)
            const marks = isGold(question)
            const sameTitle = (question.goldTitles ?? []).flatMap(titled)
            const hits = sameTitle.filter((c) => marks(asPassage(c)))
            assert.deepStrictEqual(new Set(hits.map((c) => c.title)), new Set(question.goldTitles), question.id)
          }
        }),
      60_000
    )
  }

  it("title-only gold (legacy questions, plain gold_titles) still matches by title or id", () => {
    const legacy = { id: "q", text: "Who?", goldTitles: ["Paris", "p-7"] } as unknown as Question
    const read = [{ id: "x1", title: "paris", text: "a" }, { id: "p-7", title: "Other", text: "b" }]
    assert.strictEqual(goldRecall(legacy, traceOf(legacy, read)), 1)
  })
})
