import { LlmCallError } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { start } from "../src/index.js"
import { recordingSpans } from "./Spans.js"
import { buildClient, fast, request } from "./support.js"

describe("LlmClient against the simulator", () => {
  it.scopedLive("answers, sends the role header and a W3C traceparent", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const result = yield* client.chat(request("init"))
      assert.isTrue(result.content.length > 0)
      assert.strictEqual(result.model, "deepnote-sim")
      assert.strictEqual(result.attempts, 1)
      assert.strictEqual(sim.metrics.lastRole, "init")
      assert.match(sim.metrics.lastTraceparent ?? "", /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
    }))

  it.scopedLive("retries 429 and 503, honouring Retry-After", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", retryAfterSeconds: 1 })
      const { client, ledger } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      sim.faults.failNext(["503", "429"])
      const began = Date.now()
      const result = yield* client.chat(request("plan"))
      const elapsed = Date.now() - began
      assert.strictEqual(result.attempts, 3)
      assert.isAtLeast(elapsed, 1000, "waited for Retry-After: 1")
      assert.isBelow(elapsed, 3000)
      assert.strictEqual(sim.metrics.faults["429"], 1)
      assert.strictEqual(sim.metrics.faults["503"], 1)
      const usage = yield* ledger.snapshot
      assert.strictEqual(usage.total.attempts, 3)
      assert.strictEqual(usage.byRole["plan"]?.calls, 1)
    }))

  it.scopedLive("does not retry a 400 (prompt beyond the context) and says why", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", maxModelLen: 2048 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const error = yield* Effect.flip(client.chat(request("init", "q1", { maxTokens: 4096 })))
      assert.instanceOf(error, LlmCallError)
      assert.strictEqual(error.reason, "permanent")
      assert.strictEqual(error.attempts, 1)
      assert.strictEqual(error.status, 400)
      assert.isFalse(error.transient)
      assert.include(error.message, "does not fit the model's context")
      assert.strictEqual(sim.metrics.requests, 1)
    }))

  it.scopedLive("an unknown model fails fast: without a request when /v1/models says so, else on the 404", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], model: "nope", ...fast })
      const error = yield* Effect.flip(client.chat(request("init")))
      assert.strictEqual(error.last._tag, "LlmModelNotServed")
      assert.strictEqual(error.reason, "permanent")
      assert.strictEqual(error.attempts, 1)
      assert.include(error.message, `no LLM endpoint serves the model "nope"`)
      assert.strictEqual(sim.metrics.requests, 0)
      // a server that answers no /v1/models: the request goes, and its 404 is permanent
      const other = yield* start({ content: "lite" })
      const blind = yield* buildClient({ endpoints: [{ url: other.url }], model: "nope", ...fast })
      const endpoint = (yield* blind.client.endpoints)[0]!
      assert.deepStrictEqual(endpoint.models, ["deepnote-sim"])
    }))

  it.scopedLive("times out a stalled attempt and retries", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], attemptTimeoutMs: 300, ...fast })
      sim.faults.failNext(["stall"])
      const began = Date.now()
      const result = yield* client.chat(request("judge"))
      assert.strictEqual(result.attempts, 2)
      assert.isAtLeast(Date.now() - began, 300)
      assert.strictEqual(sim.metrics.faults["stall"], 1)
    }))

  it.scopedLive("a stall on every attempt ends as a timeout after the attempt budget", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({
        endpoints: [{ url: sim.url }],
        attemptTimeoutMs: 100,
        maxAttempts: 2,
        ...fast
      })
      sim.faults.failNext(["stall", "stall"])
      const error = yield* Effect.flip(client.chat(request("judge")))
      assert.strictEqual(error.reason, "attempts-exhausted")
      assert.strictEqual(error.last._tag, "LlmTimeoutError")
      assert.strictEqual(error.attempts, 2)
    }))

  it.scopedLive("recovers from dropped connections", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      sim.faults.failNext(["drop"])
      const result = yield* client.chat(request("update"))
      assert.strictEqual(result.attempts, 2)
    }))

  it.scopedLive("reports a malformed body (attempt budget 1) and recovers from it with retries", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const one = yield* buildClient({ endpoints: [{ url: sim.url }], maxAttempts: 1, ...fast })
      sim.faults.failNext(["malformed"])
      const error = yield* Effect.flip(one.client.chat(request("init")))
      assert.strictEqual(error.last._tag, "LlmMalformedReply")
      assert.include(error.message, "unreadable reply")
      // what was wrong and how the reply began, not the expected schema's type (its first line of the error tree)
      assert.match(
        error.last.message,
        /^unreadable reply from http:\/\/127\.0\.0\.1:\d+: not a chat completion \(.+\); it began "/
      )
      assert.notInclude(error.last.message, "readonly")
      sim.faults.failNext(["malformed"])
      const streamed = yield* Effect.flip(one.client.chat({ ...request("init"), stream: true }))
      assert.strictEqual(streamed.last._tag, "LlmMalformedReply")
      const retrying = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      sim.faults.failNext(["malformed"])
      assert.strictEqual((yield* retrying.client.chat(request("init"))).attempts, 2)
    }))

  it.scopedLive("an empty retry bucket makes retries wait for a token instead of failing the call", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({
        endpoints: [{ url: sim.url }],
        retryTokens: 1,
        retryTokensPerSuccess: 0,
        retryTokensPerSecond: 5,
        maxAttempts: 10,
        ...fast,
        ejectAfter: 10
      })
      sim.faults.failNext(["drop", "drop", "drop"])
      const began = Date.now()
      const result = yield* client.chat({ ...request("init"), runId: "r1" })
      assert.strictEqual(result.attempts, 4)
      // one token in the bucket, then 200 ms per token: the 2nd and 3rd retries wait for theirs
      assert.isAtLeast(Date.now() - began, 350)
    }))

  it.scopedLive("a failed attempt's span is an error with error.type; the call retried to success stays OK", () =>
    recordingSpans((spans) =>
      Effect.gen(function*() {
        const sim = yield* start({ content: "lite" })
        const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
        sim.faults.failNext(["503", "drop"])
        assert.strictEqual((yield* client.chat(request("judge"))).attempts, 3)
        const attempts = spans.filter((s) => s.name === "LlmClient.attempt")
        assert.deepStrictEqual(attempts.map((s) => Exit.isSuccess(s.exit)), [false, false, true])
        assert.deepStrictEqual(attempts.map((s) => s.attributes.get("error.type")), [
          "503",
          "LlmTransportError",
          undefined
        ])
        assert.strictEqual(attempts[0]!.attributes.get("deepnote.llm.retry.counted"), false, "503 is back-pressure")
        assert.strictEqual(attempts[1]!.attributes.get("deepnote.llm.retry.counted"), true)
        const call = spans.find((s) => s.name === "LlmClient.chat")!
        assert.isTrue(Exit.isSuccess(call.exit))
        assert.isUndefined(call.attributes.get("error.type"))
        const failed = yield* Effect.flip(client.chat(request("init", "q1", { maxTokens: 1_000_000 })))
        assert.strictEqual(failed.reason, "permanent")
        const failedCall = spans.filter((s) => s.name === "LlmClient.chat").at(-1)!
        assert.isTrue(Exit.isFailure(failedCall.exit))
        assert.strictEqual(failedCall.attributes.get("error.type"), "400")
      })
    ))
})
