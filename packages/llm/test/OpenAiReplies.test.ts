import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { chatChunkObject, chatCompletionObject, usageChunkObject } from "../src/Domain/OpenAiReplies.js"
import { ChatChunk, ChatCompletion, usageFromWire } from "../src/Domain/Wire.js"

// The replies the simulator and the server write are read back by the client's decoders: the two sides cannot drift.
const header = { id: "chatcmpl-1", created: 1_700_000_000, model: "m" }
const usage = { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 8 } }

describe("OpenAI replies", () => {
  it("a chat.completion is what the client decodes", () => {
    const reply = chatCompletionObject(header, { role: "assistant", content: "Paris" }, "stop", usage)
    expect(reply.object).toBe("chat.completion")
    const decoded = Schema.decodeUnknownSync(ChatCompletion)(JSON.parse(JSON.stringify(reply)))
    expect(decoded.model).toBe("m")
    expect(decoded.choices[0].message.content).toBe("Paris")
    expect(decoded.choices[0].finish_reason).toBe("stop")
    expect(usageFromWire(decoded.usage!)).toEqual({ promptTokens: 12, completionTokens: 3, cachedPromptTokens: 8 })
  })

  it("stream chunks and the usage chunk are what the client decodes", () => {
    const first = Schema.decodeUnknownSync(ChatChunk)(
      JSON.parse(JSON.stringify(chatChunkObject(header, { role: "assistant", content: "Par" }, null)))
    )
    expect(first.choices.map((c) => [c.delta.content, c.finish_reason])).toEqual([["Par", null]])
    const last = Schema.decodeUnknownSync(ChatChunk)(JSON.parse(JSON.stringify(chatChunkObject(header, {}, "length"))))
    expect(last.choices.map((c) => c.finish_reason)).toEqual(["length"])
    const usageChunk = Schema.decodeUnknownSync(ChatChunk)(JSON.parse(JSON.stringify(usageChunkObject(header, usage))))
    expect(usageChunk.choices).toEqual([])
    expect(usageChunk.usage?.prompt_tokens).toBe(12)
    expect(usageChunkObject(header, usage).object).toBe("chat.completion.chunk")
  })
})
