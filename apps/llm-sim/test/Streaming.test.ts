import { Answer, defaultRunConfig, Note, structuredFormats } from "@deepnote-rag/core"
import { type ChatStreamEvent, LlmAnswerer, UsageLedger } from "@deepnote-rag/llm"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Context, Effect, Stream } from "effect"
import { start } from "../src/index.js"
import { buildClient, fast, request, waitFor } from "./support.js"

const collect = (stream: Stream.Stream<ChatStreamEvent, unknown>) =>
  Effect.map(Stream.runCollect(stream), Chunk.toReadonlyArray)

const done = (events: ReadonlyArray<ChatStreamEvent>) => {
  const last = events.at(-1)
  assert.strictEqual(last?._tag, "Done")
  return last!._tag === "Done" ? last!.result : undefined!
}

describe("LlmClient.chatStream", () => {
  it.scopedLive("streams the reply's deltas and its reasoning apart, then the whole result with usage", () =>
    Effect.gen(function*() {
      const sim = yield* start({ reasoningMeanTokens: 20, faultSeed: 5 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const events = yield* collect(client.chatStream(request("init", "s")))
      const deltas = events.filter((e) => e._tag === "Delta")
      const result = done(events)
      assert.isAbove(deltas.length, 2, "one delta per token")
      assert.strictEqual(deltas.map((d) => d.content).join(""), result.content)
      assert.isTrue(deltas.some((d) => d.reasoning.length > 0), "reasoning_content arrives as reasoning")
      assert.notInclude(result.content, "hmm", "and stays out of the reply")
      assert.strictEqual(result.usage.promptTokens, sim.metrics.promptTokens)
      assert.strictEqual(result.usage.completionTokens, sim.metrics.generationTokens)
      assert.strictEqual(result.finishReason, "stop")
    }))

  it.scopedLive("retries before the first token like any call", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      sim.faults.failNext(["503", "drop"])
      const result = done(yield* collect(client.chatStream(request("answer"))))
      assert.strictEqual(result.attempts, 3)
    }))

  it.scopedLive("a stream broken after its first token is reported, not retried", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite" })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      sim.faults.failNext(["malformed"])
      const seen: Array<ChatStreamEvent> = []
      const error = yield* Effect.flip(
        Stream.runForEach(client.chatStream(request("answer")), (e) => Effect.sync(() => seen.push(e)))
      )
      assert.strictEqual(error.reason, "stream-interrupted")
      assert.include(error.message, "broke off after its first tokens")
      assert.isAbove(seen.length, 0, "the first token had arrived")
      assert.strictEqual(sim.metrics.requests, 1)
    }))

  it.scopedLive("interrupting the stream closes the connection: the server cancels the sequence", () =>
    Effect.gen(function*() {
      const sim = yield* start({ content: "lite", reasoningMeanTokensByRole: { update: 5000 }, stepBaseMs: 10 })
      const { client } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const first = yield* collect(client.chatStream(request("update")).pipe(Stream.take(3)))
      assert.strictEqual(first.length, 3)
      yield* waitFor(Effect.sync(() => sim.metrics.cancelled), (n) => n === 1)
      assert.strictEqual(sim.metrics.running, 0)
      assert.strictEqual((yield* client.endpoints)[0]!.inFlight, 0, "the slot is released")
      assert.strictEqual((yield* client.chat(request("judge"))).attempts, 1)
    }))

  it.scopedLive("the answerer streams its reply, then the answer read from the whole of it", () =>
    Effect.gen(function*() {
      const sim = yield* start({})
      const { context } = yield* buildClient({ endpoints: [{ url: sim.url }], ...fast })
      const input = {
        question: "Who directed Jaws?",
        evidence: {
          _tag: "Note" as const,
          note: new Note({ text: "Jaws is a 1975 film directed by Steven Spielberg." })
        },
        context: {
          questionId: "q1",
          runId: undefined,
          step: 0,
          language: "en" as const,
          formats: structuredFormats,
          config: defaultRunConfig
        }
      }
      const events = Chunk.toReadonlyArray(
        yield* Stream.runCollect(LlmAnswerer.answerStream(input)).pipe(Effect.provide(context))
      )
      const last = events.at(-1)!
      assert.strictEqual(last._tag, "Done")
      const streamed = events.flatMap((e) => (e._tag === "Delta" ? [e.text] : [])).join("")
      assert.isAbove(streamed.length, 0)
      const answer = last._tag === "Done" ? last.answer : new Answer({ text: "" })
      assert.include(streamed, answer.text, "the answer is read from the streamed reply")
      assert.strictEqual((yield* Context.get(context, UsageLedger).snapshot).byRole["answer"]?.calls, 1)
    }))
})
