import { Schema } from "effect"

/** Tolerant decoders of the request bodies the simulator serves (extra fields are ignored, as vLLM mostly does). */

const Sampling = {
  model: Schema.optional(Schema.String),
  max_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  temperature: Schema.optional(Schema.NullOr(Schema.Number)),
  top_p: Schema.optional(Schema.NullOr(Schema.Number)),
  seed: Schema.optional(Schema.NullOr(Schema.Int)),
  /** vLLM's scheduling priority (lower first); read under `--scheduling-policy priority`, else ignored. */
  priority: Schema.optional(Schema.NullOr(Schema.Int))
}

const StructuredFields = {
  structured_outputs: Schema.optional(Schema.NullOr(Schema.Struct({
    choice: Schema.optional(Schema.Array(Schema.String)),
    json: Schema.optional(Schema.Unknown)
  }))),
  guided_choice: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  guided_json: Schema.optional(Schema.Unknown),
  response_format: Schema.optional(Schema.NullOr(Schema.Struct({
    type: Schema.String,
    json_schema: Schema.optional(
      Schema.Struct({ name: Schema.optional(Schema.String), schema: Schema.optional(Schema.Unknown) })
    )
  })))
}

export const ChatBody = Schema.Struct({
  ...Sampling,
  ...StructuredFields,
  messages: Schema.NonEmptyArray(Schema.Struct({
    role: Schema.String,
    content: Schema.Union(
      Schema.String,
      Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
    )
  })),
  stream: Schema.optional(Schema.NullOr(Schema.Boolean)),
  stream_options: Schema.optional(
    Schema.NullOr(Schema.Struct({ include_usage: Schema.optional(Schema.NullOr(Schema.Boolean)) }))
  )
})
export type ChatBody = typeof ChatBody.Type

export const CompletionBody = Schema.Struct({
  ...Sampling,
  prompt: Schema.Union(Schema.String, Schema.Array(Schema.String))
})
export type CompletionBody = typeof CompletionBody.Type

export const messageText = (content: ChatBody["messages"][number]["content"]): string =>
  typeof content === "string" ? content : content.map((part) => part.text ?? "").join("")

/** An OpenAI-style error body, as vLLM sends it. */
export const errorBody = (status: number, message: string, type = "BadRequestError") => ({
  object: "error",
  message,
  type,
  param: null,
  code: status,
  error: { message, type, code: status }
})
