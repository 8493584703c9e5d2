import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Schema } from "effect"
import { type CallState, decide } from "../src/Client/RetryDecision.js"
import { LlmHttpError, LlmTransportError, LlmUnavailable } from "../src/Domain/LlmError.js"
import { resolve } from "../src/LlmCallPolicy.js"
import { LlmSettingsSchema } from "../src/LlmSettings.js"

const settings = Schema.decodeUnknownSync(LlmSettingsSchema)({ endpoints: [{ url: "http://a" }], maxAttempts: 3 })
const state = (over: Partial<CallState> = {}): CallState => ({
  attempt: 1,
  counted: 0,
  uncounted: 0,
  waitedMs: 0,
  avoid: undefined,
  started: false,
  ...over
})
const http = (status: number, retryAfterMs?: number) =>
  new LlmHttpError({ endpoint: "http://a", status, message: `${status}`, retryAfterMs })
const input = (error: Parameters<typeof decide>[0]["error"], over: Partial<Parameters<typeof decide>[0]> = {}) => ({
  error,
  endpoint: undefined,
  state: state(),
  settings,
  policy: resolve(settings, {}),
  outage: false,
  elsewhere: false,
  sentMs: 10,
  random: 1,
  ...over
})

describe("retry decisions", () => {
  it.effect("permanent statuses fail at once; 408, 409, 429, 5xx are retried", () =>
    Effect.sync(() => {
      for (const status of [400, 401, 403, 404, 422]) assert.strictEqual(decide(input(http(status)))._tag, "Fail")
      for (const status of [408, 409, 429, 500, 502, 503, 504, 529]) {
        assert.strictEqual(decide(input(http(status)))._tag, "Retry", `${status}`)
      }
    }))

  it.effect("overload answers never count against maxAttempts and honour Retry-After when there is nowhere else", () =>
    Effect.sync(() => {
      const many = decide(input(http(529, 3000), { state: state({ counted: 2, uncounted: 1 }) }))
      assert.deepInclude(many, { _tag: "Retry", counted: false, delayMs: 3000 })
      const elsewhere = decide(input(http(429, 3000), { elsewhere: true }))
      assert.isTrue(elsewhere._tag === "Retry" && elsewhere.delayMs < 3000)
    }))

  it.effect("failures count while an endpoint is up, not during an outage; the outage tolerance ends the call", () =>
    Effect.sync(() => {
      const transport = new LlmTransportError({ endpoint: "http://a", message: "refused" })
      assert.deepInclude(decide(input(transport, { state: state({ counted: 2 }) })), {
        _tag: "Fail",
        reason: "attempts-exhausted"
      })
      assert.deepInclude(decide(input(transport, { state: state({ counted: 2 }), outage: true })), {
        _tag: "Retry",
        counted: false,
        throttled: false
      })
      assert.deepInclude(
        decide(input(transport, { state: state({ waitedMs: 600_000 }), outage: true })),
        { _tag: "Fail", reason: "outage" }
      )
      assert.deepInclude(decide(input(new LlmUnavailable({ message: "none" }))), { _tag: "Fail", reason: "outage" })
    }))
})
