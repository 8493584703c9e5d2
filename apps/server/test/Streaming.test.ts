import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { defaultRunConfig } from "@deepnote-rag/core"
import { LlmSettings } from "@deepnote-rag/llm"
import { type LlmSimService, start } from "@deepnote-rag/llm-sim"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ChatOpenAI } from "@langchain/openai"
import { streamText } from "ai"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import OpenAI from "openai"
import { serverLayer } from "../src/index.js"
import { baseUrl, homeWithTenant, settings } from "./Harness.js"

const question = "Who directed Big Stone Gap?"
const deepnote = { collection: "default", config: { maxStep: 2 } }

/** The simulator's token counters, to compare with what the server reports as usage. */
const counters = (sim: LlmSimService) => ({
  prompt: sim.metrics.promptTokens,
  completion: sim.metrics.generationTokens,
  cached: sim.metrics.prefixCacheHits
})

const since = (sim: LlmSimService, before: ReturnType<typeof counters>) => {
  const now = counters(sim)
  return {
    prompt: now.prompt - before.prompt,
    completion: now.completion - before.completion,
    cached: now.cached - before.cached
  }
}

/** The server with the LLM engine over the simulator, on a real 127.0.0.1 port. */
const llmServer = Effect.gen(function*() {
  // 5 ms per decode step: an answer of n tokens takes n × 5 ms to write, long enough to see it stream
  const sim = yield* start({ stepBaseMs: 5 })
  const { home, key } = yield* homeWithTenant("acme", "default")
  const server = serverLayer({
    home,
    settings: settings({ defaults: { ...defaultRunConfig, engine: "llm" } }),
    llmSettings: LlmSettings.layer({ endpoints: [{ url: `${sim.url}/v1` }], cache: false })
  }).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))
  const url = yield* baseUrl.pipe(Effect.provide(yield* Layer.build(server)))
  return { sim, key, url }
})

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk & {
  choices: Array<{ delta: { reasoning_content?: string } }>
}

describe("streaming chat completions with the LLM engine (simulator, real 127.0.0.1 port)", () => {
  it.scopedLive(
    "the official openai client: reasoning deltas carry the steps, the answer streams, usage is honest",
    () =>
      Effect.gen(function*() {
        const { key, sim, url } = yield* llmServer
        const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })

        const before = counters(sim)
        const timed = yield* Effect.promise(async () => {
          // DeepNote's extension field travels in the body (a variable: no excess-property check)
          const body = {
            model: "deepnote",
            messages: [{ role: "user" as const, content: question }],
            stream: true as const,
            stream_options: { include_usage: true },
            deepnote
          }
          const stream = await openai.chat.completions.create(body)
          const all: Array<{ chunk: Chunk; at: number }> = []
          for await (const chunk of stream) all.push({ chunk: chunk as Chunk, at: performance.now() })
          return all
        })
        const used = since(sim, before)
        const content = timed.filter((c) => (c.chunk.choices[0]?.delta.content ?? "").length > 0)
        const reasoning = timed.flatMap((c) => c.chunk.choices[0]?.delta.reasoning_content ?? [])
        const stop = timed.findIndex((c) => c.chunk.choices[0]?.finish_reason === "stop")
        assert.isAbove(content.length, 1, "the answer arrives in several content chunks")
        assert.isAtLeast(stop, 0)
        const text = reasoning.join("")
        for (const expected of ["step 0: read", "wrote the first note", "step 1: planned", "verdict"]) {
          assert.include(text, expected)
        }
        // the steps stream before the answer, the answer before the pipeline's end (the final chunk)
        const firstContent = timed.indexOf(content[0]!)
        const lastReasoning = timed.map((c) => c.chunk.choices[0]?.delta.reasoning_content ?? "").map((r) => r !== "")
          .lastIndexOf(true)
        assert.isBelow(firstContent, stop)
        assert.isAbove(timed[stop]!.at - content[0]!.at, 0)
        assert.isBelow(timed.findIndex((c) => c.chunk.choices[0]?.delta.reasoning_content !== undefined), firstContent)
        assert.isBelow(lastReasoning, firstContent, "every step was told before the answer started")
        const usage = timed.find((c) => c.chunk.usage)?.chunk.usage
        assert.deepStrictEqual(
          {
            prompt: usage?.prompt_tokens,
            completion: usage?.completion_tokens,
            cached: usage?.prompt_tokens_details?.cached_tokens
          },
          used,
          "usage = the simulator's token counters"
        )
        assert.strictEqual(usage?.total_tokens, used.prompt + used.completion)

        const before2 = counters(sim)
        const plain = {
          model: "deepnote",
          stream: false as const,
          messages: [{ role: "user" as const, content: question }],
          deepnote
        }
        const completion = yield* Effect.promise(() => openai.chat.completions.create(plain))
        const used2 = since(sim, before2)
        assert.strictEqual(completion.usage?.prompt_tokens, used2.prompt)
        assert.strictEqual(completion.usage?.completion_tokens, used2.completion)
        const byRole = (completion as unknown as {
          deepnote: { usageByRole: Record<string, { prompt_tokens: number; completion_tokens: number }> }
        }).deepnote.usageByRole
        assert.includeMembers(Object.keys(byRole), ["init", "plan", "update", "judge", "answer"])
        assert.strictEqual(Object.values(byRole).reduce((n, r) => n + r.prompt_tokens, 0), used2.prompt)
        assert.isAbove((completion.choices[0]?.message.content ?? "").length, 0)

        // /v1/ask: the token events of one answer concatenate to the answer its result carries
        const sse = yield* Effect.promise(async () => {
          const response = await fetch(`${url}/v1/ask`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${key}`,
              "content-type": "application/json",
              accept: "text/event-stream"
            },
            body: JSON.stringify({ question, ...deepnote })
          })
          return response.text()
        })
        const blocks = sse.split("\n\n").map((b) => ({
          event: /^event: (.*)$/m.exec(b)?.[1],
          data: /^data: (.*)$/m.exec(b)?.[1] ?? "{}"
        }))
        const tokens = blocks.filter((b) => b.event === "token").map((b) =>
          (JSON.parse(b.data) as { text: string }).text
        )
        const result = JSON.parse(blocks.find((b) => b.event === "result")!.data) as {
          result: { answer: { text: string } }
        }
        assert.isAbove(tokens.length, 1)
        assert.strictEqual(tokens.join(""), result.result.answer.text)
      }),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "LangChain's ChatOpenAI and the Vercel AI SDK stream the answer and the steps",
    () =>
      Effect.gen(function*() {
        const { key, sim, url } = yield* llmServer

        const langchain = new ChatOpenAI({
          model: "deepnote",
          apiKey: key,
          configuration: { baseURL: `${url}/v1` },
          maxRetries: 0,
          modelKwargs: { deepnote }
        })
        const lc = yield* Effect.promise(async () => {
          const chunks: Array<{ content: string; reasoning: string }> = []
          for await (const chunk of await langchain.stream(question)) {
            chunks.push({
              content: typeof chunk.content === "string" ? chunk.content : "",
              reasoning: String(chunk.additional_kwargs["reasoning_content"] ?? "")
            })
          }
          return chunks
        })
        assert.isAbove(lc.filter((c) => c.content.length > 0).length, 1)
        assert.include(lc.map((c) => c.reasoning).join(""), "step 0: read")

        const provider = createOpenAICompatible({
          name: "deepnote",
          baseURL: `${url}/v1`,
          apiKey: key,
          includeUsage: true,
          transformRequestBody: (body) => ({ ...body, deepnote })
        })
        const before = counters(sim)
        const vercel = yield* Effect.promise(async () => {
          const result = streamText({ model: provider("deepnote"), prompt: question, maxRetries: 0 })
          const parts: Array<{ type: string; text: string }> = []
          for await (const part of result.fullStream) {
            if (part.type === "text-delta" || part.type === "reasoning-delta") {
              parts.push({ type: part.type, text: part.text })
            }
          }
          return { parts, usage: await result.usage }
        })
        const used = since(sim, before)
        assert.isAbove(vercel.parts.filter((p) => p.type === "text-delta").length, 1)
        assert.include(vercel.parts.filter((p) => p.type === "reasoning-delta").map((p) => p.text).join(""), "verdict")
        assert.strictEqual(vercel.usage.inputTokens, used.prompt)
        assert.strictEqual(vercel.usage.outputTokens, used.completion)
      }),
    { timeout: 120_000 }
  )
})
