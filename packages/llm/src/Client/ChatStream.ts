import { Effect, Queue, Stream, Take } from "effect"
import type { ChatRequest, ChatResult, ChatStreamEvent } from "../Domain/Chat.js"
import type { LlmCallError } from "../Domain/LlmError.js"
import type { StreamDelta } from "./Sse.js"

/**
 * A chat call as a stream: the call runs in a fiber of the stream's scope, handing each delta to the stream as it
 * arrives, then `Done` with its result. Interrupting the stream interrupts the call, which aborts the HTTP request
 * (the server sees the connection close) and releases its slot.
 */
export const streamOf = (
  chatCall: (request: ChatRequest, onDelta: (delta: StreamDelta) => void) => Effect.Effect<ChatResult, LlmCallError>
) =>
(request: ChatRequest): Stream.Stream<ChatStreamEvent, LlmCallError> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Take.Take<ChatStreamEvent, LlmCallError>>()
    const offer = (event: ChatStreamEvent) => Queue.unsafeOffer(queue, Take.of(event))
    yield* chatCall({ ...request, stream: true }, (d) => offer({ _tag: "Delta", ...d })).pipe(
      Effect.withSpan("LlmClient.chatStream", { captureStackTrace: false }),
      Effect.exit,
      Effect.flatMap((exit) =>
        Effect.sync(() => {
          if (exit._tag === "Success") {
            // a cache hit streams its whole reply at once
            if (exit.value.cached) offer({ _tag: "Delta", content: exit.value.content, reasoning: "" })
            offer({ _tag: "Done", result: exit.value })
            Queue.unsafeOffer(queue, Take.end)
          } else Queue.unsafeOffer(queue, Take.failCause(exit.cause))
        })
      ),
      Effect.forkScoped
    )
    return Stream.flattenTake(Stream.fromQueue(queue))
  }))
