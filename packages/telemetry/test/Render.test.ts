import { assert, describe, it } from "@effect/vitest"
import { buildForest, renderQuestion, renderSummary, selectQuestions, selectRuns, SpanRecord } from "../src/index.js"

let next = 0
const id = (n: number, len: number) => n.toString(16).padStart(len, "0")
const span = (
  name: string,
  parent: SpanRecord | undefined,
  startMs: number,
  endMs: number,
  attributes: SpanRecord["attributes"] = {},
  extra: Partial<SpanRecord> = {}
) =>
  new SpanRecord({
    traceId: parent?.traceId ?? id(1000 + next, 32),
    spanId: id(++next, 16),
    ...(parent === undefined ? {} : { parentSpanId: parent.spanId }),
    name,
    kind: "internal",
    startTimeUnixNano: BigInt(startMs) * 1_000_000n,
    endTimeUnixNano: BigInt(endMs) * 1_000_000n,
    durationMs: endMs - startMs,
    status: "ok",
    attributes,
    events: [],
    ...extra
  })

const run = span("deepnote.run", undefined, 0, 1000, { "deepnote.run.id": "r1" })
const q1 = span("deepnote.question", run, 10, 500, {
  "deepnote.item.id": "q1",
  "deepnote.run.id": "r1",
  "deepnote.stop_reason": "max-failure",
  "deepnote.steps": 1
})
const step = span("deepnote.step", q1, 20, 400, { "deepnote.step": 1, "deepnote.verdict": "not-better" })
const init = span("NoteWriter.init", step, 30, 300, { "deepnote.step": 1 })
const chat = span("LlmClient.chat", init, 31, 299, {
  "deepnote.role": "init",
  "gen_ai.request.model": "qwen",
  "gen_ai.usage.input_tokens": 700,
  "gen_ai.usage.output_tokens": 80,
  "deepnote.llm.cached": false
})
const a1 = span("LlmClient.attempt", chat, 32, 60, {
  "deepnote.role": "init",
  "deepnote.llm.attempt": 1,
  "server.address": "http://gpu1:8000",
  "http.response.status_code": 503,
  "deepnote.llm.retry.reason": "status 503",
  "deepnote.llm.retry.backoff_ms": 180
})
const a2 = span("LlmClient.attempt", chat, 240, 298, {
  "deepnote.role": "init",
  "deepnote.llm.attempt": 2,
  "server.address": "http://gpu2:8000",
  "http.response.status_code": 200,
  "gen_ai.usage.input_tokens": 700
})
const q2 = span("deepnote.question", run, 20, 900, { "deepnote.item.id": "q2", "deepnote.run.id": "r1" }, {
  status: "error",
  statusMessage: "judge failed: 400 from http://gpu1:8000"
})
// a question cut off by a crash: its spans ended, its own span was never written
const lostParent = span("deepnote.question", run, 30, 40, { "deepnote.item.id": "q3" })
const orphan = span("Retriever.search", lostParent, 31, 39, {
  "deepnote.item.id": "q3",
  "deepnote.retrieval.returned": 5
})
const records = [a1, a2, chat, init, step, q1, q2, orphan, run]

describe("trace rendering", () => {
  it("builds trees with orphans and selects questions by run and item", () => {
    const forest = buildForest([...records, a1])
    assert.deepStrictEqual(forest.map((r) => [r.span.name, r.orphan]), [["deepnote.run", false], [
      "Retriever.search",
      true
    ]])
    assert.deepStrictEqual(selectQuestions(forest, { runId: "r1" }).map((q) => q.span.spanId), [
      q1.spanId,
      q2.spanId,
      orphan.spanId
    ])
    assert.deepStrictEqual(selectQuestions(forest, { itemId: "q1" }).map((q) => q.span.name), ["deepnote.question"])
    assert.deepStrictEqual(selectQuestions(forest, { runId: "other" }).length, 1, "the orphan names no run: kept")
    assert.strictEqual(selectRuns(forest, "r1").length, 1)
  })

  it("renders a question's timeline with offsets, bars and the attributes that explain it", () => {
    const [question] = selectQuestions(buildForest(records), { itemId: "q1" })
    const text = renderQuestion(question!, { width: 10 })
    const lines = text.split("\n")
    assert.match(lines[0]!, /^question q1 · run r1 · ok · 490 ms · started 1970-01-01T00:00:00\.010Z · trace /)
    assert.match(lines[2]!, /^\s+\+0\.00 ms\s+490 ms {2}██████████ {2}deepnote\.question {2}stop=max-failure steps=1$/)
    assert.match(lines[3]!, / {2}deepnote\.step {2}step=1 verdict=not-better$/)
    assert.match(lines[4]!, / {6}NoteWriter\.init$/, "the step is shown on step spans only")
    assert.match(lines[5]!, /LlmClient\.chat {2}role=init model=qwen in=700 out=80$/, "cached=false is left out")
    assert.match(
      lines[6]!,
      /^\s+\+22\.0 ms\s+28\.0 ms {2}██········\s+LlmClient\.attempt {2}attempt=1 endpoint=http:\/\/gpu1:8000 status=503 retry=status 503 backoff_ms=180$/
    )
    assert.match(
      lines[7]!,
      /LlmClient\.attempt {2}attempt=2 endpoint=http:\/\/gpu2:8000 status=200$/,
      "values equal to the parent's are not repeated"
    )
  })

  it("marks failures and incomplete questions, and summarises a run", () => {
    const forest = buildForest(records)
    const [, failed, incomplete] = selectQuestions(forest, { runId: "r1" })
    assert.include(renderQuestion(failed!).split("\n")[2]!, "✗ judge failed: 400 from http://gpu1:8000")
    assert.include(renderQuestion(incomplete!).split("\n")[0]!, "question q3 · incomplete")
    const summary = renderSummary(selectQuestions(forest, { runId: "r1" }), selectRuns(forest, "r1"))
    const lines = summary.split("\n")
    assert.match(lines[0]!, /^run r1 execution · ok · 1\.00 s/)
    assert.match(lines[2]!, /^item\s+status\s+duration\s+steps\s+stop\s+llm calls\s+attempts\s+tokens in\s+tokens out$/)
    assert.match(lines[3]!, /^q1\s+ok\s+490 ms\s+1\s+max-failure\s+1\s+2\s+700\s+80$/)
    assert.match(lines[4]!, /^q2\s+error\s+880 ms/)
    assert.match(lines[5]!, /^q3\s+incomplete/)
  })
})
