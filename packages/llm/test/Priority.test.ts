import { defaultRunConfig, samplingFor } from "@deepnote-rag/core"
import { LlmCache, LlmClient, LlmSettings, UsageLedger } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { fakeServer } from "./FakeServer.js"

describe("priority", () => {
  it.effect("a server that refuses the priority field (vLLM V0 under fcfs) gets none from then on", () => {
    const bodies: Array<Record<string, unknown>> = []
    return Effect.gen(function*() {
      const client = yield* LlmClient
      const request = {
        role: "judge" as const,
        messages: [{ role: "user" as const, content: "### Question\nWho?" }],
        sampling: samplingFor(defaultRunConfig, "judge")
      }
      const first = yield* client.chat(request)
      assert.strictEqual(first.attempts, 2, "retried at once without the field")
      yield* client.chat({ ...request, messages: [{ role: "user", content: "### Question\nWhere?" }] })
      assert.deepStrictEqual(bodies.map((b) => b["priority"]), [10, undefined, undefined])
    }).pipe(
      Effect.provide(
        LlmClient.layer.pipe(
          Layer.provide(
            Layer.mergeAll(UsageLedger.layer, LlmCache.layerTest, fakeServer("m", { refusePriority: true, bodies }))
          ),
          Layer.provide(LlmSettings.layer({ endpoints: [{ url: "http://fake:8000" }] }))
        )
      ),
      Effect.scoped
    )
  })
})
