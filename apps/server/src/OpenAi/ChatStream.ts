import type { ChatMessage } from "@deepnote/api"
import { Stream } from "effect"
import type { AskStreamItem } from "../Ask/Ask.js"
import type { SseItem } from "../Http/SseResponse.js"
import { encodeExtension, extensionOf, usageOf } from "./ChatCompletions.js"

export interface ChunkContext {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly includeUsage: boolean
}

const data = (value: unknown): SseItem => ({
  _tag: "Event",
  event: "message",
  data: typeof value === "string" ? value : JSON.stringify(value)
})

/**
 * An answer stream as OpenAI `chat.completion.chunk` events: the assistant role first, pipeline progress as SSE
 * comments (clients ignore them; they keep the connection alive), the answer, a final chunk with `finish_reason` and
 * the `deepnote` extension, the usage chunk when `stream_options.include_usage`, then `[DONE]`. A failure is sent as
 * an `{ "error": … }` event, which OpenAI clients raise.
 */
export const chatChunks = (ctx: ChunkContext, items: Stream.Stream<AskStreamItem>): Stream.Stream<SseItem> => {
  const chunk = (delta: Record<string, unknown>, finish: "stop" | null, extra: Record<string, unknown> = {}) =>
    data({
      id: ctx.id,
      object: "chat.completion.chunk",
      created: ctx.created,
      model: ctx.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra
    })
  const start = Stream.make(chunk({ role: "assistant", content: "" }, null))
  const body = Stream.flatMap(items, (item): Stream.Stream<SseItem> => {
    switch (item._tag) {
      case "Event":
        return Stream.make<[SseItem]>({ _tag: "Comment", text: `${item.event._tag} step ${item.event.step}` })
      case "Error":
        return Stream.make(data({ error: { ...item.error.error, type: item.error.error.code } }))
      case "Result": {
        const answer = item.record.result.answer.text
        const usage = usageOf(ctx.messages, answer)
        return Stream.make(
          chunk({ content: answer }, null),
          chunk({}, "stop", { deepnote: encodeExtension(extensionOf(item.record)) }),
          ...(ctx.includeUsage
            ? [
              data({
                id: ctx.id,
                object: "chat.completion.chunk",
                created: ctx.created,
                model: ctx.model,
                choices: [],
                usage
              })
            ]
            : []),
          data("[DONE]")
        )
      }
    }
  })
  return Stream.concat(start, body)
}
