import { describeEvent } from "@deepnote-rag/core"
import { chatChunkObject, type ReplyHeader, usageChunkObject } from "@deepnote-rag/llm"
import { Stream } from "effect"
import type { AskStreamItem } from "../Ask/Ask.js"
import type { SseItem } from "../Http/SseResponse.js"
import { encodeExtension, extensionOf } from "./ChatCompletions.js"
import { openAiErrorOf } from "./OpenAiErrors.js"
import { usageOf } from "./Usage.js"

export interface ChunkContext extends ReplyHeader {
  readonly includeUsage: boolean
}

const data = (value: unknown): SseItem => ({
  _tag: "Event",
  event: "message",
  data: typeof value === "string" ? value : JSON.stringify(value)
})

/**
 * An answer stream as OpenAI `chat.completion.chunk` events: the assistant role first; the note's evolution as
 * `reasoning_content` deltas, one line per pipeline event (step, planned queries, passages read, verdict) as it
 * happens — the convention vLLM uses for reasoning models, which chat UIs display; the answer as `content` deltas as
 * the answer role writes it (word by word when the engine wrote it at once: `Ask.stream`); a final chunk with `finish_reason` and
 * the `deepnote` extension; the usage chunk when `stream_options.include_usage`; then `[DONE]`. A failure is sent as
 * an `{ "error": … }` event, which OpenAI clients raise.
 */
export const chatChunks = (ctx: ChunkContext, items: Stream.Stream<AskStreamItem>): Stream.Stream<SseItem> => {
  const chunk = (delta: Record<string, unknown>, finish: "stop" | null, extra: Record<string, unknown> = {}) =>
    data({ ...chatChunkObject(ctx, delta, finish), ...extra })
  const start = Stream.make(chunk({ role: "assistant", content: "" }, null))
  const body = Stream.map(items, (item): ReadonlyArray<SseItem> => {
    switch (item._tag) {
      case "Event": {
        const line = describeEvent(item.event)
        return line === undefined ? [] : [chunk({ reasoning_content: `${line}\n` }, null)]
      }
      case "Token":
        return [chunk({ content: item.text }, null)]
      case "Error":
        return [data(openAiErrorOf(item.error))]
      case "Result": {
        return [
          chunk({}, "stop", { deepnote: encodeExtension(extensionOf(item)) }),
          ...(ctx.includeUsage
            ? [data(usageChunkObject(ctx, usageOf(item.usage)))]
            : []),
          data("[DONE]")
        ]
      }
    }
  })
  return Stream.concat(start, Stream.flattenIterables(body))
}
