/**
 * What an OpenAI-compatible server writes back for a chat completion — the whole reply, a stream chunk and the usage
 * chunk, each with one choice at index 0. The simulator and DeepNote's own OpenAI route both write these, so they speak
 * the wire the client decodes (`Wire.ts`) in one layout.
 */

/** The fields every object of one reply repeats. */
export interface ReplyHeader {
  readonly id: string
  readonly created: number
  readonly model: string
}

/** A `chat.completion`: the reply in one piece. */
export const chatCompletionObject = <Message, Finish extends string, Usage>(
  header: ReplyHeader,
  message: Message,
  finishReason: Finish,
  usage: Usage
) => ({
  id: header.id,
  object: "chat.completion" as const,
  created: header.created,
  model: header.model,
  choices: [{ index: 0, message, finish_reason: finishReason }],
  usage
})

/** A `chat.completion.chunk` carrying a delta (and the finish reason on the last one). */
export const chatChunkObject = <Delta>(header: ReplyHeader, delta: Delta, finishReason: string | null) => ({
  id: header.id,
  object: "chat.completion.chunk" as const,
  created: header.created,
  model: header.model,
  choices: [{ index: 0, delta, finish_reason: finishReason }]
})

/** The chunk after the last one when the request asked for `stream_options.include_usage`: no choices, the usage. */
export const usageChunkObject = <Usage>(header: ReplyHeader, usage: Usage) => ({
  id: header.id,
  object: "chat.completion.chunk" as const,
  created: header.created,
  model: header.model,
  choices: [],
  usage
})
