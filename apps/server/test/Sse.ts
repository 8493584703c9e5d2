import { HttpClient, type HttpClientRequest } from "@effect/platform"
import { Chunk, Effect, Option, Stream } from "effect"

export interface SseBlock {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
}

const parseBlock = (block: string): SseBlock | undefined => {
  let id: string | undefined
  let event = "message"
  const data: Array<string> = []
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue
    if (line.startsWith("id: ")) id = line.slice(4)
    else if (line.startsWith("event: ")) event = line.slice(7)
    else if (line.startsWith("data: ")) data.push(line.slice(6))
  }
  return data.length === 0 && id === undefined ? undefined : { id, event, data: data.join("\n") }
}

/** The events of an SSE response, parsed as they arrive (comments skipped). */
export const sseEvents = (request: HttpClientRequest.HttpClientRequest) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request)
    return response.stream.pipe(
      Stream.decodeText(),
      Stream.mapAccum("", (buffer, text) => {
        const parts = (buffer + text).split("\n\n")
        const rest = parts.pop() ?? ""
        return [rest, parts] as const
      }),
      Stream.flattenIterables,
      Stream.filterMap((block) => Option.fromNullable(parseBlock(block)))
    )
  }))

/** The first `n` events (or all, when the stream ends first); the connection closes after. */
export const takeEvents = (request: HttpClientRequest.HttpClientRequest, n: number) =>
  Effect.map(Stream.runCollect(Stream.take(sseEvents(request), n)), Chunk.toReadonlyArray)
