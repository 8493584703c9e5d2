import {
  environmentSource,
  fileSource,
  type LlmSettingsError,
  resolveSettings,
  type SettingsSource
} from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"

const env = (entries: Record<string, string>) => (self: Effect.Effect<SettingsSource, LlmSettingsError>) =>
  Effect.withConfigProvider(self, ConfigProvider.fromMap(new Map(Object.entries(entries))))

const flags = (values: Record<string, unknown>): SettingsSource => ({
  values,
  keyOf: (field) => (field === "endpoints" ? "--llm-url" : "flags")
})

const file = (section: unknown) => Either.getOrThrow(fileSource(section, "deepnote.yaml"))

describe("LLM settings precedence: flags > config file > environment > defaults, field by field", () => {
  it.effect("the environment alone", () =>
    Effect.gen(function*() {
      const environment = yield* environmentSource.pipe(
        env({
          DEEPNOTE_LLM_URL: "http://a:8000/v1#4,http://b:8000",
          DEEPNOTE_LLM_ATTEMPT_TIMEOUT: "5 seconds",
          DEEPNOTE_LLM_OUTAGE_TOLERANCE: "2 minutes"
        })
      )
      const s = yield* resolveSettings([environment])
      assert.deepStrictEqual(s.endpoints, [{ url: "http://a:8000/v1", maxNumSeqs: 4 }, { url: "http://b:8000" }])
      assert.strictEqual(s.attemptTimeoutMs, 5000)
      assert.strictEqual(s.outageToleranceMs, 120_000)
      assert.strictEqual(s.maxAttempts, 5, "a default")
    }))

  it.effect("a flag replaces only its own field: --llm-url keeps DEEPNOTE_LLM_ATTEMPT_TIMEOUT", () =>
    Effect.gen(function*() {
      const environment = yield* environmentSource.pipe(
        env({ DEEPNOTE_LLM_URL: "http://env:8000", DEEPNOTE_LLM_ATTEMPT_TIMEOUT: "5 seconds" })
      )
      const s = yield* resolveSettings([flags({ endpoints: [{ url: "http://flag:8000" }] }), environment])
      assert.deepStrictEqual(s.endpoints, [{ url: "http://flag:8000" }])
      assert.strictEqual(s.attemptTimeoutMs, 5000)
    }))

  it.effect("the config file over the environment, the flags over both, field by field", () =>
    Effect.gen(function*() {
      const environment = yield* environmentSource.pipe(
        env({ DEEPNOTE_LLM_URL: "http://env:8000", DEEPNOTE_LLM_MAX_ATTEMPTS: "7", DEEPNOTE_LLM_RPS: "3" })
      )
      const fromFile = file({ endpoints: ["http://file:8000#8"], maxAttempts: 9, attemptTimeoutMs: 1000 })
      const both = yield* resolveSettings([fromFile, environment])
      assert.deepStrictEqual(both.endpoints, [{ url: "http://file:8000", maxNumSeqs: 8 }])
      assert.strictEqual(both.maxAttempts, 9)
      assert.strictEqual(both.rps, 3)
      const all = yield* resolveSettings([
        flags({ endpoints: [{ url: "http://flag:8000" }], cache: false }),
        fromFile,
        environment
      ])
      assert.deepStrictEqual(all.endpoints, [{ url: "http://flag:8000" }])
      assert.strictEqual(all.maxAttempts, 9)
      assert.strictEqual(all.attemptTimeoutMs, 1000)
      assert.strictEqual(all.rps, 3)
      assert.isFalse(all.cache)
    }))

  it.effect("errors name the field and where its value came from", () =>
    Effect.gen(function*() {
      const environment = yield* environmentSource.pipe(
        env({ DEEPNOTE_LLM_URL: "http://env:99999", DEEPNOTE_LLM_MAX_ATTEMPTS: "0" })
      )
      const error = yield* Effect.flip(
        resolveSettings([
          flags({ endpoints: [{ url: "http://a", maxNumSeqs: Number.NaN }] }),
          file({ rps: -1 }),
          environment
        ])
      )
      assert.include(error.message, "endpoints.0.maxNumSeqs: maxNumSeqs must be a positive integer (from --llm-url)")
      assert.include(error.message, "rps: rps must be > 0 (from llm.rps in deepnote.yaml)")
      assert.include(
        error.message,
        "maxAttempts: maxAttempts must be a positive integer (from DEEPNOTE_LLM_MAX_ATTEMPTS)"
      )
      const port = yield* Effect.flip(resolveSettings([environment]))
      assert.include(port.message, "port from 1 to 65535")
      assert.include(port.message, "(from DEEPNOTE_LLM_URL)")
    }))

  it.effect("a value of the wrong type names its variable; unknown file keys and no endpoint are refused", () =>
    Effect.gen(function*() {
      const bad = yield* Effect.flip(environmentSource.pipe(env({ DEEPNOTE_LLM_ATTEMPT_TIMEOUT: "soon" })))
      assert.match(bad.message, /^DEEPNOTE_LLM_ATTEMPT_TIMEOUT: /)
      assert.notInclude(bad.message, "process context")
      const unknown = fileSource({ endpoints: [], timeout: 5 }, "deepnote.yaml")
      assert.isTrue(Either.isLeft(unknown) && unknown.left.message.includes("unknown LLM setting(s) llm.timeout"))
      const none = yield* Effect.flip(resolveSettings([yield* environmentSource.pipe(env({}))]))
      assert.isTrue(none.missingEndpoints)
    }))
})
