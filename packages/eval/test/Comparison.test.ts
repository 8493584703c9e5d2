import { Answer, PipelineResult, Question } from "@deepnote-rag/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import {
  type CompareInput,
  compareItems,
  renderComparedItemsCsv,
  renderComparisonCsv,
  renderComparisonJson,
  renderComparisonTable
} from "../src/index.js"

const question = (i: number) =>
  new Question({ id: `q${i}`, text: `Question ${i}?`, answers: [`answer ${i}`], language: "en" })

const result = (q: Question, text: string) =>
  new PipelineResult({
    questionId: q.id,
    question: q.text,
    profile: "deepnote",
    answer: new Answer({ text }),
    stopReason: "finish",
    trace: { queries: [], notes: [], passages: [] },
    counters: {
      llm: { init: 0, plan: 0, update: 0, judge: 0, answer: 0, total: 0 },
      retrievals: 0,
      steps: 0,
      failures: 0,
      uniquePassages: 0
    },
    elapsedMs: 1
  })

/** A run of `n` questions in order; `right(i)` says whether question i is answered correctly. */
const run = (n: number, right: (i: number) => boolean, order: (xs: Array<number>) => Array<number> = (xs) => xs) =>
  order(Array.from({ length: n }, (_, i) => i)).map((i, seq): CompareInput => {
    const q = question(i)
    return { seq, status: "done", question: q, result: result(q, right(i) ? `answer ${i}` : "something else") }
  })

const metric = (c: { readonly metrics: ReadonlyArray<{ readonly metric: string }> }, name: string) => {
  const m = c.metrics.find((x) => x.metric === name)
  assert.isDefined(m, name)
  return m as NonNullable<typeof c.metrics[number]> & { base: number; candidate: number; difference: number } & {
    low: number
    high: number
  }
}

describe("compareItems: paired bootstrap over question ids", () => {
  it.effect("is deterministic with a seed and its interval contains the difference", () =>
    Effect.gen(function*() {
      const base = run(40, (i) => i % 2 === 0)
      const candidate = run(40, (i) => i % 2 === 0 || i % 5 === 1)
      const a = yield* compareItems(base, candidate, { seed: 7, resamples: 500 })
      const b = yield* compareItems(base, candidate, { seed: 7, resamples: 500 })
      assert.deepStrictEqual(a, b)
      const em = metric(a, "em")
      assert.strictEqual(em.base, 50)
      assert.strictEqual(em.candidate, 60)
      assert.strictEqual(em.difference, 10)
      assert.isTrue(em.low <= em.difference && em.difference <= em.high, JSON.stringify(em))
      assert.isTrue(em.low < em.high)
      const other = yield* compareItems(base, candidate, { seed: 8, resamples: 500 })
      assert.notDeepEqual(metric(other, "em"), em, "another seed resamples differently")
      assert.strictEqual(a.paired, 40)
      assert.strictEqual(a.primaryMetric, "f1")
      assert.strictEqual(a.items.filter((i) => i.change === "improved").length, 4)
      assert.strictEqual(a.items.filter((i) => i.change === "regressed").length, 0)
    }))

  it.effect("identical runs differ by 0 with a zero-width interval", () =>
    Effect.gen(function*() {
      const base = run(12, (i) => i % 3 === 0)
      const same = yield* compareItems(base, base)
      for (const m of same.metrics) {
        assert.strictEqual(m.difference, 0)
        assert.strictEqual(m.low, 0)
        assert.strictEqual(m.high, 0)
      }
      assert.isTrue(same.items.every((i) => i.change === "same"))
    }))

  it.effect("pairs by question id, not by position", () =>
    Effect.gen(function*() {
      const base = run(10, (i) => i < 5)
      // the same answers in reverse order: paired by position every question would change
      const reversed = run(10, (i) => i < 5, (xs) => xs.reverse())
      const c = yield* compareItems(base, reversed)
      assert.strictEqual(c.paired, 10)
      assert.strictEqual(metric(c, "f1").difference, 0)
      assert.isTrue(c.items.every((i) => i.change === "same"), JSON.stringify(c.items.map((i) => i.change)))
    }))

  it.effect("sorts regressions first, counts the unpaired, and refuses runs with no question in common", () =>
    Effect.gen(function*() {
      const base = run(6, () => true)
      const candidate = [...run(6, (i) => i !== 3), {
        seq: 6,
        status: "done" as const,
        question: question(99),
        result: result(question(99), "x")
      }]
      const c = yield* compareItems(base.slice(0, 5), candidate)
      assert.strictEqual(c.paired, 5)
      assert.strictEqual(c.onlyBase, 0)
      assert.strictEqual(c.onlyCandidate, 2)
      assert.strictEqual(c.items[0]!.change, "regressed")
      assert.strictEqual(c.items[0]!.itemId, "q3")
      const failedCandidate = base.map((x) => (x.question.id === "q1" ? { ...x, status: "failed" as const } : x))
      const crash = yield* compareItems(base, failedCandidate)
      assert.strictEqual(crash.items[0]!.itemId, "q1", "a failed question scores 0: a regression")
      assert.strictEqual(crash.items[0]!.change, "regressed")
      const none = yield* Effect.exit(compareItems(base, [{ ...candidate[6]! }]))
      assert.isTrue(Exit.isFailure(none))
      if (Exit.isFailure(none)) assert.include(String(none.cause), "no question pairs")

      const runs = { base: "r-a", candidate: "r-b" }
      const table = renderComparisonTable(runs, c)
      assert.include(table, "5 paired by id")
      assert.include(table, "regressed (1, by f1)")
      assert.include(table, "95% CI (paired bootstrap)")
      const json = JSON.parse(renderComparisonJson(runs, c)) as { base: string; paired: number }
      assert.deepStrictEqual([json.base, json.paired], ["r-a", 5])
      assert.match(renderComparisonCsv(runs, c).split("\n")[0]!, /^metric,n,base,candidate,difference,ci_low/)
      assert.include(renderComparedItemsCsv(c), "q3,regressed,done,done,1,0,Question 3?")
    }))
})
