import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { logLayer } from "../src/index.js"

describe("structured logs", () => {
  it.effect("JSON lines carry the level, message, trace and span ids and the run/item annotations", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const span = yield* Effect.gen(function*() {
        yield* Effect.logWarning("endpoint ejected")
        return yield* Effect.currentSpan
      }).pipe(
        Effect.withSpan("LlmClient.attempt"),
        Effect.annotateLogs({ "deepnote.run.id": "r1", "deepnote.item.id": "q1" }),
        Effect.provide(logLayer("json", (line) => void lines.push(line)))
      )
      assert.strictEqual(lines.length, 1)
      const entry = JSON.parse(lines[0]!) as Record<string, unknown>
      assert.strictEqual(entry["level"], "WARN")
      assert.strictEqual(entry["message"], "endpoint ejected")
      assert.strictEqual(entry["trace_id"], span.traceId)
      assert.strictEqual(entry["span_id"], span.spanId)
      assert.strictEqual(entry["span_name"], "LlmClient.attempt")
      assert.strictEqual(entry["deepnote.run.id"], "r1")
      assert.strictEqual(entry["deepnote.item.id"], "q1")
    }))
})
