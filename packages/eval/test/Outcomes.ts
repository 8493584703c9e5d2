import { Answer, Passage, PipelineResult, type Question, type StopReason } from "@deepnote-rag/core"
import type { ReportItem } from "../src/index.js"

export const passage = (title: string) => new Passage({ id: `p-${title}`, title, text: "…", source: "test", score: 1 })

/** A finished question's outcome with the given counters, stop reason and passages read (step, title). */
export const done = (
  q: Question,
  answer: string,
  o: { llm: number; retrievals: number; steps: number; ms: number; stop: StopReason; passages: Array<[number, string]> }
): ReportItem["outcome"] => ({
  _tag: "done",
  result: new PipelineResult({
    questionId: q.id,
    question: q.text,
    profile: "deepnote",
    answer: new Answer({ text: answer }),
    stopReason: o.stop,
    trace: { queries: [], notes: [], passages: o.passages.map(([step, title]) => ({ step, passage: passage(title) })) },
    counters: {
      llm: { init: 1, plan: 0, update: 0, judge: 0, answer: 1, total: o.llm },
      retrievals: o.retrievals,
      steps: o.steps,
      failures: 0,
      uniquePassages: o.passages.length
    },
    elapsedMs: o.ms
  })
})
