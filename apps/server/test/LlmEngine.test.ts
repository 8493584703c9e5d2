import { AnswerRecord, defaultRunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { captureProxy, start } from "@deepnote-rag/llm-sim"
import { RunStore, Store } from "@deepnote-rag/store"
import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Path from "node:path"
import { serverLayer } from "../src/index.js"
import { clientWith, homeWithTenant, loopbackTest, raw, settings } from "./Harness.js"

describe("the HTTP app with the LLM engine (against the simulator over real HTTP)", () => {
  it.scopedLive(
    "answers with the LLM roles, in English and Chinese, as JSON, as SSE and through the OpenAI facade; asks are interactive, runs batch; a run's manifest names its models",
    () =>
      Effect.gen(function*() {
        const sim = yield* start({ stepBaseMs: 1 })
        const wire = yield* captureProxy(sim.url)
        const { home, key } = yield* homeWithTenant("acme", "wiki")
        const server = serverLayer({
          home,
          settings: settings({ defaults: { ...defaultRunConfig, engine: "llm" } }),
          llmSettings: LlmSettings.layer({ endpoints: [{ url: `${wire.url}/v1` }], cache: false })
        }).pipe(Layer.provideMerge(loopbackTest))
        return yield* Effect.gen(function*() {
          const client = yield* clientWith(key)
          assert.strictEqual((yield* client.health.readyz()).engine, "llm")

          const record = yield* client.ask.ask({
            payload: { question: "Who directed Big Stone Gap?", collection: "wiki", config: { maxStep: 2 } }
          })
          assert.instanceOf(record, AnswerRecord)
          assert.strictEqual(record.config.engine, "llm")
          const calls = record.result.counters.llm.total
          assert.isAtLeast(calls, 2 + 3, "init, at least one step (plan, update, judge), answer")
          assert.strictEqual(sim.metrics.success, calls, "every role call reached the LLM server once")
          for (const role of ["init", "plan", "answer"]) {
            assert.isAbove(sim.metrics.byRole[role] ?? 0, 0, `the ${role} role sent x-deepnote-role`)
          }

          // Chinese prompts (language from the question) through the same client and server
          const before = sim.metrics.success
          const zh = yield* client.ask.ask({
            payload: {
              question: "电影《大石峡》的导演是谁？",
              collection: "wiki",
              config: { maxStep: 1, maxFailure: 1 }
            }
          })
          assert.strictEqual(sim.metrics.success - before, zh.result.counters.llm.total)
          assert.isAtLeast(zh.result.counters.llm.total, 2)

          const sse = yield* raw(
            HttpClientRequest.post("/v1/ask").pipe(
              HttpClientRequest.setHeader("accept", "text/event-stream"),
              HttpClientRequest.bodyUnsafeJson({
                question: "Who directed Big Stone Gap?",
                collection: "wiki",
                config: { maxStep: 1, maxFailure: 1 }
              })
            ),
            key
          )
          assert.strictEqual(sse.status, 200)
          assert.include(sse.text, "event: NoteInitialised")
          assert.include(sse.text, "event: result")

          const chat = yield* raw(
            HttpClientRequest.post("/v1/chat/completions").pipe(
              HttpClientRequest.bodyUnsafeJson({
                model: "deepnote",
                messages: [{ role: "user", content: "Who directed Big Stone Gap?" }],
                deepnote: { collection: "wiki" }
              })
            ),
            key
          )
          assert.strictEqual(chat.status, 200, chat.text)
          assert.isAbove(
            (JSON.parse(chat.text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content
              .length,
            0
          )

          // asks are interactive work (vLLM priority 0) shared fairly by tenant; a run's calls are batch work (10)
          // shared fairly by run
          const asked = wire.completions()
          assert.isAbove(asked.length, 0)
          for (const call of asked) {
            assert.strictEqual(call.body?.["priority"], 0)
            assert.strictEqual(call.headers["x-deepnote-fairness-key"], "acme")
          }
          const created = yield* raw(
            HttpClientRequest.post("/v1/runs").pipe(
              HttpClientRequest.bodyUnsafeJson({
                collection: "wiki",
                jsonl: JSON.stringify({
                  id: "q1",
                  question: "Who directed Big Stone Gap?",
                  answers: ["Adriana Trigiani"]
                }),
                config: { maxStep: 1, maxFailure: 1 }
              })
            ),
            key
          )
          assert.strictEqual(created.status, 202, created.text)
          const runId = (JSON.parse(created.text) as { id: string }).id
          while ((yield* client.runs.get({ path: { id: runId } })).status !== "completed") {
            yield* Effect.sleep("50 millis")
          }
          // the manifest records the model each role used (discovered from the server) and the server it was on
          const manifest = (yield* Effect.flatMap(RunStore, (store) => store.getRun(runId)).pipe(
            Effect.provide(Store.layer({ url: Path.join(home, "deepnote.sqlite") }))
          )).manifest
          assert.deepStrictEqual(Object.keys(manifest.models).sort(), ["answer", "init", "judge", "plan", "update"])
          for (const model of Object.values(manifest.models)) assert.notStrictEqual(model, "unknown")
          assert.deepStrictEqual(manifest.servers.map((s) => s.endpoint), [wire.url])
          const batch = wire.completions().slice(asked.length)
          assert.isAbove(batch.length, 0)
          for (const call of batch) {
            assert.strictEqual(call.body?.["priority"], 10)
            assert.strictEqual(call.headers["x-deepnote-fairness-key"], runId)
          }
        }).pipe(Effect.provide(server))
      }),
    { timeout: 60_000 }
  )
})
