import {
  type CallContext,
  defaultRunConfig,
  Judge,
  Note,
  NoteWriter,
  profiles,
  QueryPlanner,
  RoleError
} from "@deepnote-rag/core"
import { LlmEngine, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { start } from "../src/index.js"
import { fast } from "./support.js"

const context = (profile: "deepnote" | "paper" = "deepnote"): CallContext => ({
  questionId: "q",
  runId: "r",
  step: 1,
  language: "en",
  formats: profiles[profile].formats,
  config: { ...defaultRunConfig, profile }
})

const roles = (url: string, extra: Record<string, unknown> = {}) =>
  Layer.build(
    LlmEngine.layer.pipe(Layer.provide(LlmSettings.layer({ endpoints: [{ url }], ...fast, cache: false, ...extra })))
  )

describe("LLM roles: malformed replies are reported, never crash", () => {
  it.scopedLive("a judge reply that says neither True nor False is drawn again; three such draws are a RoleError", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const ctx = yield* roles(sim.url)
      const compare = Context.get(ctx, Judge).compare({
        question: "Who?",
        bestNote: new Note({ text: "A." }),
        candidate: new Note({ text: "A. B." }),
        context: context()
      })
      // one garbage reply: the next draw (next seed) is read, the garbage counted as a parse failure
      sim.faults.failNext(["garbage"])
      const verdict = yield* compare
      assert.strictEqual(verdict.parsed, "structured")
      const ledger = Context.get(ctx, UsageLedger)
      assert.strictEqual((yield* ledger.snapshot).byRole["judge"]?.parseFailures, 1)
      // three in a row: the question's RoleError, quoting the last reply
      sim.faults.failNext(["garbage", "garbage", "garbage"])
      const error = yield* Effect.flip(compare)
      assert.instanceOf(error, RoleError)
      assert.strictEqual(error.role, "judge")
      assert.include(error.message, "neither True nor False (3 draws)")
      assert.strictEqual((yield* ledger.snapshot).byRole["judge"]?.parseFailures, 4)
    }))

  it.scopedLive("the paper judge falls back to the substring rule and counts it", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const ctx = yield* roles(sim.url)
      sim.faults.failNext(["garbage"])
      const verdict = yield* Context.get(ctx, Judge).compare({
        question: "Who?",
        bestNote: new Note({ text: "A." }),
        candidate: new Note({ text: "A. B." }),
        context: context("paper")
      })
      assert.strictEqual(verdict.parsed, "fallback")
      assert.isFalse(verdict.better)
      assert.strictEqual((yield* Context.get(ctx, UsageLedger).snapshot).total.parseFailures, 1)
    }))

  it.scopedLive("a planner reply that is not JSON is read line by line (counted)", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const ctx = yield* roles(sim.url)
      sim.faults.failNext(["garbage"])
      const plan = yield* Context.get(ctx, QueryPlanner).plan({
        question: "Who directed Jaws?",
        bestNote: new Note({ text: "Jaws is a film." }),
        queryLog: [],
        count: 2,
        context: context()
      })
      assert.deepStrictEqual(plan.queries, ["¯\\_(ツ)_/¯ maybe"])
      assert.strictEqual((yield* Context.get(ctx, UsageLedger).snapshot).total.parseFailures, 1)
    }))

  it.scopedLive("a failing server becomes a RoleError naming the role, not a defect", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const ctx = yield* roles(sim.url, { maxAttempts: 2, ejectAfter: 5 })
      sim.faults.failNext(["drop", "drop"])
      const error = yield* Effect.flip(
        Context.get(ctx, NoteWriter).init({ question: "Who?", passages: [], context: context() })
      )
      assert.strictEqual(error.role, "init")
      assert.include(error.message, "gave up after 2 attempts")
    }))
})
