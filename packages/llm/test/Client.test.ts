import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import {
  backoffMs,
  cacheKey,
  choose,
  countTokens,
  EndpointState,
  LlmSettings,
  parseEndpoint,
  parseRetryAfter,
  RetryThrottle,
  splitTokens
} from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"

const endpoint = (i: number, limit = 2) => new EndpointState(i, `http://h${i}`, limit, true, 100, "structured_outputs")

describe("client building blocks", () => {
  it.effect("Retry-After: seconds or an HTTP date", () =>
    Effect.sync(() => {
      const now = Date.parse("2026-01-01T00:00:00Z")
      assert.strictEqual(parseRetryAfter("2", now), 2000)
      assert.strictEqual(parseRetryAfter("0.5", now), 500)
      assert.strictEqual(parseRetryAfter("Thu, 01 Jan 2026 00:00:03 GMT", now), 3000)
      assert.strictEqual(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now), 0)
      assert.isUndefined(parseRetryAfter("soon", now))
      assert.isUndefined(parseRetryAfter(undefined, now))
    }))

  it.effect("backoff grows exponentially with jitter, capped; Retry-After wins when longer", () =>
    Effect.sync(() => {
      const o = { baseMs: 100, maxMs: 1000 }
      assert.strictEqual(backoffMs(1, o, 1), 100)
      assert.strictEqual(backoffMs(1, o, 0), 50)
      assert.strictEqual(backoffMs(3, o, 1), 400)
      assert.strictEqual(backoffMs(10, o, 1), 1000)
      assert.strictEqual(backoffMs(1, { ...o, retryAfterMs: 5000 }, 1), 5000)
      assert.strictEqual(backoffMs(1, { ...o, retryAfterMs: 10 }, 1), 100)
    }))

  it.effect("routing: sticky preference, then least loaded, avoiding the endpoint that just failed", () =>
    Effect.sync(() => {
      const eps = [endpoint(0), endpoint(1), endpoint(2)]
      const first = choose(eps, { key: "question-7" }, 0)!
      assert.strictEqual(choose(eps, { key: "question-7" }, 0), first)
      first.inFlight = 2
      const spill = choose(eps, { key: "question-7" }, 0)!
      assert.notStrictEqual(spill, first)
      eps.forEach((e) => (e.inFlight = 0))
      eps[0]!.inFlight = 1
      eps[1]!.health = "ejected"
      assert.strictEqual(choose(eps, { key: undefined }, 0), eps[2])
      assert.strictEqual(choose(eps, { key: undefined, avoid: eps[2] }, 0), eps[0])
      eps[0]!.inFlight = 2
      assert.strictEqual(
        choose(eps, { key: undefined, avoid: eps[2] }, 0),
        eps[2],
        "the failed endpoint when nothing else is free"
      )
      eps[2]!.inFlight = 2
      assert.isUndefined(choose(eps, { key: undefined }, 0))
    }))

  it.effect("token approximation is deterministic and lossless", () =>
    Effect.sync(() => {
      const text = "DeepNote 笔记 is adaptive, 2024!\n"
      assert.strictEqual(splitTokens(text).join(""), text)
      assert.strictEqual(countTokens("笔记"), 2)
      assert.strictEqual(countTokens("abcdefgh"), 2)
    }))

  it.effect("cache keys cover model, messages, sampling and sample index", () =>
    Effect.sync(() => {
      const sampling = samplingFor(defaultRunConfig, "judge")
      const base = { kind: "chat" as const, model: "m", messages: [{ role: "user" as const, content: "x" }], sampling }
      const key = cacheKey(base)
      assert.match(key, /^[0-9a-f]{64}$/)
      assert.strictEqual(cacheKey({ ...base }), key)
      assert.notStrictEqual(cacheKey({ ...base, model: "n" }), key)
      assert.notStrictEqual(cacheKey({ ...base, sampling: { ...sampling, seed: 1 } }), key)
      assert.notStrictEqual(cacheKey({ ...base, sampleIndex: 1 }), key)
      assert.notStrictEqual(cacheKey({ ...base, structured: { _tag: "Choice", choices: ["a"] } }), key)
    }))

  it.effect("settings from Config: comma-separated URLs with #N, a redacted key, a duration", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(parseEndpoint("http://a:8000/v1#32"), { url: "http://a:8000/v1", maxNumSeqs: 32 })
      const settings = yield* LlmSettings.pipe(
        Effect.provide(LlmSettings.layerConfig),
        Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([
            ["DEEPNOTE_LLM_URL", "http://a:8000/v1#32, http://b:8000"],
            ["DEEPNOTE_LLM_API_KEY", "k"],
            ["DEEPNOTE_LLM_ATTEMPT_TIMEOUT", "30 seconds"],
            ["DEEPNOTE_LLM_CACHE", "false"]
          ])
        ))
      )
      assert.deepStrictEqual(settings.endpoints, [{ url: "http://a:8000/v1", maxNumSeqs: 32 }, {
        url: "http://b:8000"
      }])
      assert.strictEqual(Redacted.value(settings.apiKey!), "k")
      assert.strictEqual(settings.attemptTimeoutMs, 30_000)
      assert.isFalse(settings.cache)
      assert.strictEqual(settings.maxAttempts, 5)
    }))

  it.effect("invalid settings name the field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LlmSettings.pipe(
        Effect.provide(Layer.orDie(LlmSettings.layerConfig)),
        Effect.withConfigProvider(
          ConfigProvider.fromMap(new Map([["DEEPNOTE_LLM_URL", "ftp://x"], ["DEEPNOTE_LLM_MAX_ATTEMPTS", "0"]]))
        ),
        Effect.catchAllDefect((d) => Effect.fail(String(d)))
      ))
      assert.include(error, "endpoint url")
      assert.include(error, "maxAttempts")
    }))

  it.effect("retry throttle: a token per retry, refilled per success and over time; empty means wait, not fail", () =>
    Effect.sync(() => {
      const t = new RetryThrottle(2, 0.5, 10, 0)
      assert.strictEqual(t.reserve(0), 0)
      assert.strictEqual(t.reserve(0), 0)
      assert.strictEqual(t.reserve(0), 100, "empty: wait until time brings one token (10 per second)")
      assert.strictEqual(t.reserve(0), 200, "the next waits behind it")
      t.success(0)
      t.success(0)
      assert.strictEqual(t.level(0), -1)
      assert.strictEqual(t.level(100), 0)
      assert.strictEqual(t.level(10_000), 2, "never above its size")
    }))
})
