import { Sse } from "@effect/experimental"
import { HttpServerResponse } from "@effect/platform"
import { Stream } from "effect"

/** One server-sent event (`event` "message" is written without an `event:` line), or a comment line. */
export type SseItem =
  | { readonly _tag: "Event"; readonly event: string; readonly id?: string | undefined; readonly data: string }
  | { readonly _tag: "Comment"; readonly text: string }

const encode = (item: SseItem): string =>
  item._tag === "Comment"
    ? `: ${item.text}\n\n`
    : Sse.encoder.write({ _tag: "Event", event: item.event, id: item.id, data: item.data })

/** A `text/event-stream` response (no caching, no proxy buffering). */
export const sseResponse = <E>(items: Stream.Stream<SseItem, E>) =>
  HttpServerResponse.stream(Stream.encodeText(Stream.map(items, encode)), {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
  })

/** True when the client asked for an event stream. */
export const wantsEventStream = (accept: string | undefined) =>
  (accept ?? "").toLowerCase().includes("text/event-stream")
