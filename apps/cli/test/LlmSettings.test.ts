import { start } from "@deepnote-rag/llm-sim"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { llmUrlProblem, resolveLlmSettings } from "../src/engine/LlmOptions.js"
import { runCli, tempHome } from "./RunCli.js"

const noFlags = { urls: [], apiKey: Option.none(), noCache: false }
const withEnv = (entries: Record<string, string>) => <A, E>(self: Effect.Effect<A, E>) =>
  Effect.withConfigProvider(self, ConfigProvider.fromMap(new Map(Object.entries(entries))))

describe("LLM settings of the CLI: flags > config file > environment > defaults", () => {
  it.effect("--llm-url keeps every DEEPNOTE_LLM_* setting it does not replace", () =>
    Effect.gen(function*() {
      const s = yield* resolveLlmSettings(
        { ...noFlags, urls: ["http://flag:8000/v1#16"] },
        { maxAttempts: 9 },
        "interactive"
      ).pipe(
        withEnv({
          DEEPNOTE_LLM_URL: "http://env:8000",
          DEEPNOTE_LLM_ATTEMPT_TIMEOUT: "5 seconds",
          DEEPNOTE_LLM_MAX_ATTEMPTS: "2"
        })
      )
      assert.deepStrictEqual(s.endpoints, [{ url: "http://flag:8000/v1", maxNumSeqs: 16 }])
      assert.strictEqual(s.attemptTimeoutMs, 5000, "from the environment")
      assert.strictEqual(s.maxAttempts, 9, "the file over the environment")
      assert.strictEqual(s.workClass, "interactive")
    }))

  it.effect("no endpoint anywhere: a usage error that says what to do", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(resolveLlmSettings(noFlags, undefined).pipe(withEnv({})))
      assert.strictEqual(error.message, "--llm-url is required for --engine llm (or set DEEPNOTE_LLM_URL)")
      const bad = yield* Effect.flip(
        resolveLlmSettings(noFlags, { attemptTimeoutMs: -5 }).pipe(withEnv({ DEEPNOTE_LLM_URL: "http://a:1" }))
      )
      assert.include(bad.message, "attemptTimeoutMs")
      assert.include(bad.message, "(from llm.attemptTimeoutMs in the config file)")
    }))

  it.effect("resume: the servers the run recorded, unless a flag, the file or the environment names others", () =>
    Effect.gen(function*() {
      const recorded = ["http://gpu1:8000/v1", "http://gpu2:8000"]
      const fromRun = yield* resolveLlmSettings(noFlags, undefined, "batch", undefined, recorded).pipe(withEnv({}))
      assert.deepStrictEqual(fromRun.endpoints, [{ url: "http://gpu1:8000/v1" }, { url: "http://gpu2:8000" }])
      const fromEnv = yield* resolveLlmSettings(noFlags, undefined, "batch", undefined, recorded).pipe(
        withEnv({ DEEPNOTE_LLM_URL: "http://env:8000" })
      )
      assert.deepStrictEqual(fromEnv.endpoints, [{ url: "http://env:8000" }])
      const fromFlag = yield* resolveLlmSettings(
        { ...noFlags, urls: ["http://flag:8000"] },
        undefined,
        "batch",
        undefined,
        recorded
      )
        .pipe(withEnv({}))
      assert.deepStrictEqual(fromFlag.endpoints, [{ url: "http://flag:8000" }])
      const none = yield* Effect.flip(resolveLlmSettings(noFlags, undefined, "batch", undefined, []).pipe(withEnv({})))
      assert.include(none.message, "--llm-url is required")
    }))

  it("--llm-url values are checked as flags", () => {
    assert.isUndefined(llmUrlProblem("http://127.0.0.1:8000/v1#32"))
    assert.include(llmUrlProblem("http://127.0.0.1:99999") ?? "", "a port is 1 to 65535")
    assert.include(llmUrlProblem("http://h:8000#0") ?? "", "the part after # must be a positive integer")
    assert.include(llmUrlProblem("http://h:8000#x") ?? "", "--llm-url http://h:8000#x")
    assert.include(llmUrlProblem("h:8000") ?? "", "expected http(s)://host[:port][/v1]")
  })
})

describe("LLM settings of the deepnote command", () => {
  it.scopedLive("--llm-url with DEEPNOTE_LLM_ATTEMPT_TIMEOUT: the timeout applies", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", faultRate: 1, faults: ["stall"] })
      const home = yield* tempHome
      const began = Date.now()
      const out = yield* runCli(
        [
          "ask",
          "Who directed Jaws?",
          "--engine",
          "llm",
          "--profile",
          "no-retrieval",
          "--llm-url",
          sim.url,
          "--home",
          home
        ],
        { DEEPNOTE_LLM_ATTEMPT_TIMEOUT: "1 second", DEEPNOTE_LLM_MAX_ATTEMPTS: "1" }
      )
      assert.strictEqual(out.code, 1, out.stderr)
      assert.include(out.stderr, "within 1000 ms")
      assert.isBelow(Date.now() - began, 30_000, "not the 120 s default")
    }), 60_000)

  it.scopedLive(
    "a bad --llm-url or none at all is a usage error (exit 2) naming the flag",
    () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const args = ["ask", "Who?", "--engine", "llm", "--profile", "no-retrieval", "--home", home]
        const port = yield* runCli([...args, "--llm-url", "http://127.0.0.1:99999"])
        assert.strictEqual(port.code, 2, port.stderr)
        assert.include(port.stdout + port.stderr, "--llm-url http://127.0.0.1:99999")
        const fragment = yield* runCli([...args, "--llm-url", "http://127.0.0.1:8000#x"])
        assert.strictEqual(fragment.code, 2)
        assert.include(fragment.stdout + fragment.stderr, "the part after # must be a positive integer")
        const missing = yield* runCli(args)
        assert.strictEqual(missing.code, 2, missing.stderr)
        assert.include(missing.stderr, "deepnote: --llm-url is required for --engine llm (or set DEEPNOTE_LLM_URL)")
        assert.notInclude(missing.stderr, "process context")
      }),
    60_000
  )
})
