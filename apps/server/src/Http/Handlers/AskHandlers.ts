import { Api, CurrentTenant } from "@deepnote/api"
import { AnswerRecord } from "@deepnote/core"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Schema, Stream } from "effect"
import { Ask, type AskStreamItem } from "../../Ask/Ask.js"
import { type SseItem, sseResponse, wantsEventStream } from "../SseResponse.js"

const encodeRecord = Schema.encodeSync(AnswerRecord)

const toSse = (item: AskStreamItem): SseItem => {
  switch (item._tag) {
    case "Event":
      return { _tag: "Event", event: item.event._tag, data: JSON.stringify(item.event) }
    case "Result":
      return { _tag: "Event", event: "result", data: JSON.stringify(encodeRecord(item.record)) }
    case "Error":
      return { _tag: "Event", event: "error", data: JSON.stringify({ _tag: item.error._tag, error: item.error.error }) }
  }
}

export const AskHandlers = HttpApiBuilder.group(Api, "ask", (handlers) =>
  Effect.gen(function*() {
    const ask = yield* Ask
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
          return sseResponse(Stream.map(yield* ask.stream(tenant, input), toSse))
        }
        return yield* ask.answer(tenant, input)
      }))
  }))
