import { Effect, Option, Schema, Stream } from "effect"
import { ChatChunk, type WireUsage } from "../Domain/Wire.js"

export interface StreamedChat {
  readonly content: string
  readonly finishReason: string | undefined
  readonly model: string | undefined
  readonly usage: WireUsage | undefined
  readonly done: boolean
  /** Milliseconds from the start of the body to the first content delta. */
  readonly firstDeltaAt: number | undefined
}

const decodeChunk = Schema.decodeUnknownOption(Schema.parseJson(ChatChunk))

/** One SSE chunk's new text: the reply's and the reasoning's (either may be empty). */
export interface StreamDelta {
  readonly content: string
  readonly reasoning: string
}

/**
 * Folds an OpenAI-style SSE body (`data: {...}` lines, `data: [DONE]`) into the whole reply and its usage
 * (`stream_options.include_usage` puts usage in the last chunk), handing each non-empty delta to `onDelta` as it
 * arrives (for callers that stream it on). A line that is not a chunk fails with `malformed`.
 */
export const foldChatStream = <E>(
  body: Stream.Stream<Uint8Array, E>,
  now: () => number,
  malformed: (line: string) => E,
  onDelta?: (delta: StreamDelta) => void
): Effect.Effect<StreamedChat, E> => {
  const start = now()
  const parts: Array<string> = []
  return body.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.runFoldEffect(
      {
        content: "",
        finishReason: undefined,
        model: undefined,
        usage: undefined,
        done: false,
        firstDeltaAt: undefined
      } as StreamedChat,
      (acc, line): Effect.Effect<StreamedChat, E> => {
        if (!line.startsWith("data:")) return Effect.succeed(acc)
        const data = line.slice(5).trim()
        if (data === "[DONE]") return Effect.succeed({ ...acc, done: true })
        const chunk = decodeChunk(data)
        if (Option.isNone(chunk)) return Effect.fail(malformed(line))
        const c = chunk.value
        const delta = c.choices[0]?.delta.content ?? ""
        const reasoning = c.choices[0]?.delta.reasoning_content ?? ""
        if (delta.length > 0) parts.push(delta)
        if (onDelta !== undefined && (delta.length > 0 || reasoning.length > 0)) onDelta({ content: delta, reasoning })
        return Effect.succeed({
          content: "",
          finishReason: c.choices[0]?.finish_reason ?? acc.finishReason,
          model: c.model ?? acc.model,
          usage: c.usage ?? acc.usage,
          done: false,
          firstDeltaAt: acc.firstDeltaAt ?? (delta.length > 0 ? now() - start : undefined)
        })
      }
    ),
    Effect.map((acc) => ({ ...acc, content: parts.join("") }))
  )
}
