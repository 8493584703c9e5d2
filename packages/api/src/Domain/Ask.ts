import { QuestionText } from "@deepnote-rag/core"
import { Schema } from "effect"
import { ConfigPatch } from "../ConfigPatch.js"
import { CollectionName } from "./Names.js"

/** `POST /v1/ask`: one question, answered with the server's engine over one of the tenant's collections. */
export class AskRequest extends Schema.Class<AskRequest>("AskRequest")({
  question: QuestionText,
  /** Default `default`. Not needed by the `no-retrieval` profile. */
  collection: Schema.optional(CollectionName),
  /** Stream pipeline events as SSE (the same as `Accept: text/event-stream`). */
  stream: Schema.optional(Schema.Boolean),
  config: Schema.optional(ConfigPatch)
}, [undefined, undefined, {
  // a misspelled field (`colection`) must not silently answer from the default collection (on the encoded side,
  // where the JSON's keys are checked)
  parseOptions: { onExcessProperty: "error" }
}]) {}
