import type { ChatRequest, ChatResult, CompletionRequest, CompletionResult } from "../Domain/Chat.js"
import { usageFromWire } from "../Domain/Wire.js"
import type { CachedReply } from "../LlmCache.js"
import { countChatTokens, countTokens } from "../Tokens.js"
import type { Executed } from "./Call.js"

/** A chat call's result from the server's reply: usage as reported, else estimated with `Tokens.ts`. */
export const chatResult = (request: ChatRequest, model: string, done: Executed, latencyMs: number): ChatResult => {
  const content = done.reply.texts[0] ?? ""
  return {
    content,
    finishReason: done.reply.finishReason,
    model: done.reply.model ?? model,
    endpoint: done.endpoint.url,
    usage: done.reply.usage
      ? usageFromWire(done.reply.usage)
      : { promptTokens: countChatTokens(request.messages), completionTokens: countTokens(content) },
    attempts: done.attempts,
    latencyMs,
    cached: false,
    structured: request.structured === undefined ? "none" : done.structuredSent ? "enforced" : "unsupported"
  }
}

export const completionResult = (
  request: CompletionRequest,
  model: string,
  done: Executed,
  latencyMs: number
): CompletionResult => ({
  texts: done.reply.texts,
  model: done.reply.model ?? model,
  endpoint: done.endpoint.url,
  usage: done.reply.usage
    ? usageFromWire(done.reply.usage)
    : {
      promptTokens: request.prompts.reduce((n, p) => n + countTokens(p), 0),
      completionTokens: done.reply.texts.reduce((n, t) => n + countTokens(t), 0)
    },
  attempts: done.attempts,
  latencyMs,
  cached: false
})

/** What the response cache keeps of a result. */
export const cacheEntry = (
  texts: Array<string>,
  result: {
    readonly finishReason?: string | undefined
    readonly model: string
    readonly usage: { readonly promptTokens: number; readonly completionTokens: number }
  }
): CachedReply => ({
  texts,
  ...(result.finishReason === undefined ? {} : { finishReason: result.finishReason }),
  model: result.model,
  promptTokens: result.usage.promptTokens,
  completionTokens: result.usage.completionTokens
})

export const chatFromCache = (c: CachedReply): ChatResult => ({
  content: c.texts[0] ?? "",
  finishReason: c.finishReason,
  model: c.model,
  endpoint: "cache",
  usage: { promptTokens: c.promptTokens, completionTokens: c.completionTokens },
  attempts: 0,
  latencyMs: 0,
  cached: true,
  structured: "none"
})

export const completionFromCache = (c: CachedReply): CompletionResult => ({
  texts: c.texts,
  model: c.model,
  endpoint: "cache",
  usage: { promptTokens: c.promptTokens, completionTokens: c.completionTokens },
  attempts: 0,
  latencyMs: 0,
  cached: true
})
