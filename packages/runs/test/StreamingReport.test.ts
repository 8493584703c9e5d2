import { defaultRunConfig, Question } from "@deepnote-rag/core"
import { exportRun, runReport } from "@deepnote-rag/runs"
import { RunManifest, RunStore, Store } from "@deepnote-rag/store"
import { EmbeddedPostgres, result } from "@deepnote-rag/store/testing"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"

const size = 130

/**
 * A run of 130 questions (more than two of the pages a report reads) written through the store: every fifth answered
 * wrongly, three failed, two left pending; its report and export must cover every question, in order.
 */
const reportAndExport = (url: string) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const questions = Array.from(
      { length: size },
      (_, i) => new Question({ id: `q${String(i).padStart(3, "0")}`, text: `question ${i}?`, answers: [`answer ${i}`] })
    )
    const manifest = new RunManifest({
      config: defaultRunConfig,
      configHash: "cfg-hash",
      codeVersion: "test",
      dataset: { path: "data/q.jsonl", hash: "data-hash" }
    })
    const run = yield* store.createRun({ manifest, questions })
    yield* Effect.forEach(questions.slice(0, size - 2), (q, i) =>
      i % 40 === 39
        ? store.failItem({ runId: run.id, itemId: q.id, error: { tag: "LlmTimeout", message: "no reply" } })
        : store.completeItem({
          runId: run.id,
          itemId: q.id,
          result: result(q, i % 5 === 0 ? "wrong" : `answer ${i}`)
        }))
    const report = yield* runReport(run.id, { perItem: true })
    assert.deepStrictEqual(report.counts, { total: size, finished: size - 2, done: size - 5, failed: 3 })
    const em = report.metrics.find((m) => m.name === "em")!
    assert.strictEqual(em.n, size - 5)
    const wrong = questions.slice(0, size - 2).filter((_, i) => i % 5 === 0 && i % 40 !== 39).length
    assert.strictEqual(em.mean, Math.round(((size - 5 - wrong) / (size - 5)) * 10000) / 100)
    assert.deepStrictEqual(report.items?.map((i) => i.id), questions.map((q) => q.id))
    assert.deepStrictEqual(report.failures.map((f) => f.id), ["q039", "q079", "q119"])
    const lines = Chunk.toReadonlyArray(yield* Stream.runCollect(yield* exportRun(run.id)))
      .map((line) => JSON.parse(line) as { itemId: string; status: string })
    assert.deepStrictEqual(lines.map((l) => l.itemId), questions.map((q) => q.id))
    assert.deepStrictEqual(lines.slice(-3).map((l) => l.status), ["done", "pending", "pending"])
  }).pipe(Effect.provide(Store.layer({ url })), Effect.orDie)

describe("runReport and exportRun read a run page after page", () => {
  it.scoped("over SQLite: every question, in order, with its scores", () => reportAndExport("sqlite::memory:"))

  it.layer(EmbeddedPostgres.layer, { timeout: "60 seconds" })((it) => {
    it.effect("over Postgres: the same", () =>
      Effect.flatMap(EmbeddedPostgres, (pg) => Effect.flatMap(pg.createDatabase, reportAndExport)).pipe(Effect.orDie))
  })
})
