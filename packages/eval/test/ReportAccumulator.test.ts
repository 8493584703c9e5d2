import { Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import {
  bootstrapMeanCi,
  buildReport,
  makeReportAccumulator,
  metrics,
  type ReportItem,
  scorableOf
} from "../src/index.js"
import { done } from "./Outcomes.js"

const answered = (q: Question, answer: string, ms: number): ReportItem => ({
  question: q,
  outcome: done(q, answer, {
    llm: 2 + (ms % 5),
    retrievals: 1 + (ms % 4),
    steps: ms % 3,
    ms: ms / 7,
    stop: ms % 3 === 0 ? "finish" : "max-step",
    passages: []
  }),
  usage: { promptTokens: 1000 + ms, completionTokens: 10 + (ms % 13) }
})

// 300 multihop questions (more than a score column's first capacity), a failure, a pending one, then a yes/no question
// whose task adds strategyqa-acc: it must score the 300 earlier questions too, as a report built at once does
const items: ReadonlyArray<ReportItem> = [
  ...Array.from({ length: 300 }, (_, i) =>
    answered(
      new Question({ id: `m${i}`, text: `Question ${i}?`, answers: [`answer ${i % 7}`], language: "en" }),
      i % 4 === 0 ? "no idea" : `the answer ${i % 7}`,
      i * 13
    )),
  {
    question: new Question({ id: "f", text: "Failing?", answers: ["x"], language: "en" }),
    outcome: { _tag: "failed", error: { tag: "LlmTimeout", message: "no reply" } }
  },
  {
    question: new Question({ id: "p", text: "Pending?", answers: ["y"], language: "en" }),
    outcome: { _tag: "pending" }
  },
  answered(new Question({ id: "y", text: "Is it?", answers: ["yes"], task: "yesno", language: "en" }), "yes", 5)
]

describe("makeReportAccumulator: a report one question at a time", () => {
  it("scores a metric a later task adds over every earlier question, with the bootstrap over all of them", () => {
    const report = buildReport(items, { perItem: true })
    assert.deepStrictEqual(report.metrics.map((m) => [m.name, m.n]), [
      ["acc", 301],
      ["em", 301],
      ["f1", 301],
      ["strategyqa-acc", 301]
    ])
    const done = items.filter((i) => i.outcome._tag === "done")
    const plain = done.map((i) =>
      metrics["strategyqa-acc"].score(
        scorableOf(i.question, i.outcome._tag === "done" ? i.outcome.result.answer.text : "")
      )
    )
    const ci = bootstrapMeanCi(plain)!
    const strategy = report.metrics[3]!
    assert.strictEqual(strategy.mean, Math.round((plain.reduce((a, b) => a + b, 0) / plain.length) * 10000) / 100)
    assert.deepStrictEqual(strategy.ci, {
      ...ci,
      low: Math.round(ci.low * 10000) / 100,
      high: Math.round(ci.high * 10000) / 100
    })
    assert.deepStrictEqual(report.counts, { total: 303, finished: 302, done: 301, failed: 1 })
    assert.deepStrictEqual(Object.keys(report.stopReasons), ["finish", "max-step"])
    // per question: the report's metrics in its order; nothing for the failed and the pending question
    assert.deepStrictEqual(Object.keys(report.items![0]!.scores), ["acc", "em", "f1", "strategyqa-acc"])
    assert.deepStrictEqual(report.items![300]!.scores, {})
    assert.strictEqual(report.items![300]!.error, "LlmTimeout: no reply")
  })

  it("gives the same report fed one by one as built from the list; failures score 0 when asked", () => {
    const accumulator = makeReportAccumulator({ scoreFailuresAsZero: true, metrics: ["em"], total: 400 })
    for (const item of items) accumulator.add(item)
    const streamed = accumulator.finish()
    assert.deepStrictEqual(streamed, buildReport(items, { scoreFailuresAsZero: true, metrics: ["em"], total: 400 }))
    assert.strictEqual(streamed.metrics[0]!.n, 302)
    assert.isTrue(streamed.partial)
    assert.isUndefined(streamed.items)
  })
})
