import { Answer, PipelineResult, Question } from "@deepnote-rag/core"

/** A question `id` with one gold answer, `answer <id>`. */
export const question = (id: string, text = `question ${id}?`) => new Question({ id, text, answers: [`answer ${id}`] })

/** A small finished result for `q` (no trace): what tests store as a question's outcome. */
export const result = (q: Question, answer = `answer ${q.id}`) =>
  new PipelineResult({
    questionId: q.id,
    question: q.text,
    profile: "deepnote",
    answer: new Answer({ text: answer }),
    stopReason: "max-step",
    trace: { queries: [], passages: [], notes: [] },
    counters: {
      llm: { init: 1, plan: 0, update: 0, judge: 0, answer: 1, total: 2 },
      retrievals: 1,
      steps: 0,
      failures: 0,
      uniquePassages: 0
    },
    elapsedMs: 12
  })
