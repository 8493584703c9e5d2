import { answerFrom, judgeNotes, planQueries, updateNote, writeInitialNote } from "@deepnote/extractive"
import type { ContentEngine } from "./Content.js"

/** The offline extractive engine (packages/extractive) as the simulator's content: the one wiring file. */
export const extractiveEngine: ContentEngine = {
  name: "extractive",
  init: (question, passages) => writeInitialNote(question, passages),
  update: (question, note, passages) => updateNote(question, note, passages),
  plan: (question, note, queries, count) => planQueries(question, note, queries, count),
  judge: (question, best, candidate) => judgeNotes(question, best, candidate).better,
  answer: (question, evidence) =>
    answerFrom(
      question,
      evidence._tag === "Note" ? { _tag: "Note", note: { text: evidence.text } } : evidence
    )
}
