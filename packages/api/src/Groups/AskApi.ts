import { AnswerRecord } from "@deepnote-rag/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AskRequest } from "../Domain/Ask.js"
import { Authentication } from "../Security.js"

/** One question answered end to end. */
export class AskApi extends HttpApiGroup.make("ask")
  .add(
    HttpApiEndpoint.post("ask", "/v1/ask")
      .setPayload(AskRequest)
      .addSuccess(AnswerRecord)
      .annotate(OpenApi.Summary, "Answer one question")
      .annotate(
        OpenApi.Description,
        "Returns the AnswerRecord (answer, best note, trace, counters). With `Accept: text/event-stream` or `\"stream\": true` " +
          "the response is a server-sent event stream: one event per pipeline event (event name = its `_tag`), `token` " +
          "events with the answer's text as it is written, then `result` (the AnswerRecord) or `error`. Every event " +
          "has an id `<askId>.<seq>`: the same request with `Last-Event-ID` resumes after it (within 5 minutes of the end)."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Ask")
{}
