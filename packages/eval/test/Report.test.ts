import { PipelineResult, Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  buildReport,
  renderCsv,
  renderItemsCsv,
  renderJson,
  renderTable,
  Report,
  type ReportItem
} from "../src/index.js"
import { done } from "./Outcomes.js"

const q1 = new Question({
  id: "q1",
  text: "Which tower?",
  answers: ["Eiffel Tower"],
  language: "en",
  goldTitles: ["Eiffel Tower", "Paris"]
})
const q2 = new Question({
  id: "q2",
  text: "Who was president?",
  answers: ["Barack Obama"],
  language: "en",
  goldTitles: ["Obama"]
})
const q3 = new Question({ id: "q3", text: "哪所大学？", answers: ["北京大学"], language: "zh" })
const q4 = new Question({ id: "q4", text: "Failing?", answers: ["x"] })
const q5 = new Question({ id: "q5", text: "Not yet?", answers: ["y"] })

const items: ReadonlyArray<ReportItem> = [
  {
    question: q1,
    outcome: done(q1, "The Eiffel Tower!", {
      llm: 7,
      retrievals: 2,
      steps: 1,
      ms: 100,
      stop: "max-step",
      passages: [[0, "Eiffel Tower"], [1, "Paris"]]
    }),
    usage: { promptTokens: 100, completionTokens: 10 }
  },
  {
    question: q2,
    outcome: done(q2, "Obama", {
      llm: 5,
      retrievals: 1,
      steps: 2,
      ms: 300,
      stop: "max-failure",
      passages: [[0, "Chicago"], [1, "obama"]]
    }),
    usage: { promptTokens: 200, completionTokens: 30 }
  },
  {
    question: q3,
    outcome: done(q3, "北京", { llm: 3, retrievals: 1, steps: 0, ms: 200, stop: "max-failure", passages: [] })
  },
  { question: q4, outcome: { _tag: "failed", error: { tag: "RoleError", message: "bad reply" } } },
  { question: q5, outcome: { _tag: "pending" } }
]

describe("buildReport", () => {
  it.effect("computes metrics, costs, recall and counts on a partial run", () =>
    Effect.sync(() => {
      const report = buildReport(items, { title: "test", perItem: true })
      assert.deepStrictEqual(report.counts, { total: 5, finished: 4, done: 3, failed: 1 })
      assert.isTrue(report.partial)
      assert.deepStrictEqual(report.metrics.map((m) => [m.name, m.n, m.mean]), [
        ["acc", 3, 33.33],
        ["em", 3, 33.33],
        ["f1", 3, 77.78]
      ])
      for (const m of report.metrics) assert.isTrue(m.ci !== undefined && m.ci.low <= m.mean && m.mean <= m.ci.high)
      assert.deepStrictEqual(report.cost, {
        llmCalls: 5,
        retrievals: 1.33,
        passages: 1.33,
        steps: 1,
        wallMs: 200,
        promptTokens: 150,
        completionTokens: 20
      })
      assert.deepStrictEqual(report.recall, { n: 2, init: 25, final: 100, allGold: 100 })
      assert.isUndefined(report.budget)
      assert.deepStrictEqual(report.stopReasons, { "max-step": 1, "max-failure": 2 })
      assert.deepStrictEqual(report.failures, [{ id: "q4", tag: "RoleError", message: "bad reply" }])
      assert.deepStrictEqual(report.items?.[0]?.scores, { acc: 1, em: 1, f1: 1 })
      assert.deepStrictEqual([report.items?.[0]?.recallInit, report.items?.[0]?.recallFinal], [0.5, 1])
      assert.deepStrictEqual(report.items?.map((i) => [i.llmCalls, i.retrievals, i.passages]), [
        [7, 2, 2],
        [5, 1, 2],
        [3, 1, 0],
        [undefined, undefined, undefined],
        [undefined, undefined, undefined]
      ])
      assert.strictEqual(report.items?.[3]?.error, "RoleError: bad reply")
    }))

  it.effect("recall at the budget: the share of questions that read every gold passage, and passages read", () =>
    Effect.sync(() => {
      const partial: ReportItem = {
        question: q1,
        outcome: done(q1, "x", {
          llm: 2,
          retrievals: 1,
          steps: 0,
          ms: 1,
          stop: "passage-cap",
          passages: [[0, "Paris"]]
        })
      }
      const report = buildReport([items[0]!, partial], { budget: 15 })
      assert.deepStrictEqual(report.recall, { n: 2, init: 50, final: 75, allGold: 50 })
      assert.strictEqual(report.cost.passages, 1.5)
      assert.strictEqual(report.budget, 15)
      const table = renderTable(report)
      assert.include(table, "gold recall: 50.00 after init, 75.00 final (n=2, budget 15 passages)")
      assert.include(table, "every gold passage read: 50.00%")
      assert.include(table, "1.50 passages read")
      assert.strictEqual(Schema.decodeUnknownSync(Report)(JSON.parse(renderJson(report))).budget, 15)
    }))

  it.effect("deeprag's subqueries: retrieved vs parametric per question, in the cost and the text", () =>
    Effect.sync(() => {
      const withSubqueries = (item: ReportItem, retrieved: number, parametric: number): ReportItem => {
        if (item.outcome._tag !== "done") return item
        const result = item.outcome.result
        return {
          ...item,
          outcome: {
            _tag: "done",
            result: new PipelineResult({
              ...result,
              counters: { ...result.counters, subqueries: { retrieved, parametric } }
            })
          }
        }
      }
      const report = buildReport([withSubqueries(items[0]!, 2, 1), withSubqueries(items[1]!, 0, 3)], {
        title: "deeprag"
      })
      assert.deepStrictEqual(report.cost.subqueries, { retrieved: 1, parametric: 2 })
      assert.include(renderTable(report), "subqueries per question: 1.00 retrieved, 2.00 parametric")
    }))

  it.effect("named metrics, failures as zero, a complete run", () =>
    Effect.sync(() => {
      const zero = buildReport(items, { metrics: ["acc", "hotpot-f1", "str-em"], scoreFailuresAsZero: true, total: 4 })
      assert.deepStrictEqual(zero.metrics.map((m) => [m.name, m.n, m.mean]), [["acc", 4, 25], ["hotpot-f1", 4, 41.67], [
        "str-em",
        0,
        0
      ]])
      assert.isFalse(zero.partial)
      assert.deepStrictEqual(buildReport([]).counts, { total: 0, finished: 0, done: 0, failed: 0 })
    }))

  it.effect("renders an aligned table, JSON that decodes back, and CSV", () =>
    Effect.sync(() => {
      const report = buildReport(items, { title: "hotpot", perItem: true })
      const table = renderTable(report)
      assert.include(table, "hotpot (partial: 4 of 5)")
      assert.include(table, "questions: 5 total, 3 done, 1 failed, 1 not finished")
      const rows = table.split("\n").filter((l) => /^(metric|acc|em|f1) /.test(l))
      assert.strictEqual(rows.length, 4)
      const meanEnd = (row: string) => /^\S+\s+\S+\s+\S+/u.exec(row)?.[0].length
      assert.strictEqual(new Set(rows.map(meanEnd)).size, 1)
      assert.match(table, /f1\s+3\s+77\.78\s+\[\d+\.\d\d, \d+\.\d\d\]/)
      assert.include(table, "gold recall: 25.00 after init, 100.00 final (n=2); every gold passage read: 100.00%")
      assert.match(table, /per question: [\d.]+ LLM calls, [\d.]+ retrievals, [\d.]+ passages read, /)
      assert.include(table, "stop reasons: max-failure 2, max-step 1")
      const decoded = Schema.decodeUnknownSync(Report)(JSON.parse(renderJson(report)))
      assert.strictEqual(renderJson(decoded), renderJson(report))
      assert.deepStrictEqual(decoded.metrics, report.metrics)
      const csv = renderCsv(report).trim().split("\n")
      assert.strictEqual(csv[0], "metric,n,mean,ci_low,ci_high,finished,total,description")
      assert.match(csv[1]!, /^acc,3,33\.33,[\d.]+,[\d.]+,4,5,/)
      const itemsCsv = renderItemsCsv(report).trim().split("\n")
      assert.strictEqual(itemsCsv.length, 6)
      assert.match(itemsCsv[0]!, /,retrievals,passages,recall_init,/)
      assert.match(itemsCsv[1]!, /^q1,done,1,1,1,max-step,7,2,\d+,0\.5,1,The Eiffel Tower!,$/)
    }))
})
