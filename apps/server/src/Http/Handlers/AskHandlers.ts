import { Api, CurrentTenant } from "@deepnote-rag/api"
import { AnswerRecord } from "@deepnote-rag/core"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Schema, Stream } from "effect"
import { Ask, type AskStreamItem } from "../../Ask/Ask.js"
import { AskReplay, type Numbered, parseAskEventId } from "../../Ask/AskReplay.js"
import { type SseItem, sseResponse, wantsEventStream } from "../SseResponse.js"

const encodeRecord = Schema.encodeSync(AnswerRecord)

const dataOf = (item: AskStreamItem): { readonly event: string; readonly data: string } => {
  switch (item._tag) {
    case "Event":
      return { event: item.event._tag, data: JSON.stringify(item.event) }
    case "Token":
      return { event: "token", data: JSON.stringify({ text: item.text }) }
    case "Result":
      return { event: "result", data: JSON.stringify(encodeRecord(item.record)) }
    case "Error":
      return { event: "error", data: JSON.stringify({ _tag: item.error._tag, error: item.error.error }) }
  }
}

/** Every event carries `id: <askId>.<seq>`: a client that reconnects with it as `Last-Event-ID` resumes there. */
const toSse = (askId: string) => ({ seq, item }: Numbered): SseItem => ({
  _tag: "Event",
  id: `${askId}.${seq}`,
  ...dataOf(item)
})

export const AskHandlers = HttpApiBuilder.group(Api, "ask", (handlers) =>
  Effect.gen(function*() {
    const ask = yield* Ask
    const replay = yield* AskReplay
    return handlers.handle("ask", ({ payload, request }) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const input = {
          question: payload.question,
          collection: payload.collection,
          config: payload.config,
          configField: "config"
        }
        if (payload.stream === true || wantsEventStream(request.headers["accept"])) {
          const resumeFrom = parseAskEventId(request.headers["last-event-id"])
          if (resumeFrom !== undefined) {
            const events = yield* replay.resume(tenant, resumeFrom.id, resumeFrom.afterSeq)
            return sseResponse(Stream.map(events, toSse(resumeFrom.id)))
          }
          const started = yield* replay.start(tenant, yield* ask.stream(tenant, input))
          return sseResponse(Stream.map(started.events, toSse(started.id)))
        }
        return (yield* ask.answer(tenant, input)).record
      }))
  }))
