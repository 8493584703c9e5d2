import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { updateNote, writeInitialNote } from "../src/index.js"
import { corliss, guangmao, isVerbatim } from "./fixtures.js"

const passages = [corliss.film, corliss.distractor, corliss.actress]

describe("writeInitialNote", () => {
  it.effect("keeps only verbatim passage sentences, one per line", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, passages)
      const lines = note.split("\n")
      assert.isAbove(lines.length, 0)
      for (const line of lines) assert.isTrue(isVerbatim(line, passages), line)
    }))

  it.effect("follows the bridge: the actress's post enters although it shares no word with the question", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, passages)
      assert.include(note, "starring then 17-year-old Shirley Temple as Corliss Archer")
      assert.include(note, `Shirley Temple: ${corliss.bridgeSentence}`)
    }))

  it.effect("stays within the sentence and character budget", () =>
    Effect.sync(() => {
      const note = writeInitialNote(corliss.question, passages, { maxSentences: 2, maxChars: 10_000 })
      assert.strictEqual(note.split("\n").length, 2)
      assert.isAtMost(writeInitialNote(corliss.question, passages, { maxChars: 300 }).length, 300)
    }))

  it.effect("writes nothing from passages that do not touch the question", () =>
    Effect.sync(() => assert.strictEqual(writeInitialNote("Who founded Rome?", [guangmao[1]!]), "")))

  it.effect("Chinese: picks the sentence that answers, verbatim", () =>
    Effect.sync(() => {
      const note = writeInitialNote("广茂铁路全长多少公里？", guangmao)
      assert.include(note, "广茂铁路是中国广东省境内的一条铁路，由广州至茂名，全长364.6公里。")
      for (const line of note.split("\n")) assert.isTrue(isVerbatim(line, guangmao), line)
    }))
})

describe("updateNote", () => {
  it.effect("adds the new relevant sentences and keeps the old ones", () =>
    Effect.sync(() => {
      const best = writeInitialNote(corliss.question, [corliss.film])
      const updated = updateNote(corliss.question, best, [corliss.actress])
      for (const line of best.split("\n")) assert.include(updated, line)
      assert.include(updated, corliss.bridgeSentence)
    }))

  it.effect("never duplicates a sentence (case, spacing and punctuation aside)", () =>
    Effect.sync(() => {
      const best = writeInitialNote(corliss.question, passages)
      const shouting = { title: corliss.film.title, text: corliss.film.text.toUpperCase().replace(/\. /gu, ".  ") }
      assert.strictEqual(updateNote(corliss.question, best, [corliss.film, shouting]), best)
      const lines = updateNote(corliss.question, best, passages).split("\n")
      assert.strictEqual(new Set(lines).size, lines.length)
    }))

  it.effect("drops the lowest-scoring sentences when over budget", () =>
    Effect.sync(() => {
      const best = writeInitialNote(corliss.question, [corliss.film, corliss.distractor])
      const updated = updateNote(corliss.question, best, [corliss.actress], { maxSentences: 3 })
      assert.strictEqual(updated.split("\n").length, 3)
      assert.include(updated, "Shirley Temple as Corliss Archer")
    }))
})
