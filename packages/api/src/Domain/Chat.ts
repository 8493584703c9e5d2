import { Counters, Note, PipelineResult, StopReason } from "@deepnote/core"
import { Schema } from "effect"
import { ConfigPatch } from "../ConfigPatch.js"
import { CollectionName } from "./Names.js"

const ContentPart = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })

/** A chat message; content may be text or an array of parts (only text parts are read). */
export const ChatMessage = Schema.Struct({
  role: Schema.String,
  content: Schema.optionalWith(Schema.Union(Schema.String, Schema.Array(ContentPart)), { nullable: true })
})
export type ChatMessage = typeof ChatMessage.Type

/**
 * OpenAI-compatible chat completion request. The last user message is the question; `model` is `deepnote` (the
 * server's default profile) or `deepnote-<profile>`. `deepnote` is DeepNote's extension (collection and knobs).
 * Sampling fields (temperature, max_tokens, …) are accepted and ignored: the run config governs the roles.
 */
export const ChatCompletionRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.NonEmptyArray(ChatMessage),
  stream: Schema.optionalWith(Schema.Boolean, { nullable: true }),
  stream_options: Schema.optionalWith(Schema.Struct({ include_usage: Schema.optional(Schema.Boolean) }), {
    nullable: true
  }),
  deepnote: Schema.optional(
    Schema.Struct({ collection: Schema.optional(CollectionName), config: Schema.optional(ConfigPatch) })
  )
}).annotations({ identifier: "ChatCompletionRequest" })
export type ChatCompletionRequest = typeof ChatCompletionRequest.Type

export const Usage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int
})

/** DeepNote's extension of a completion: the best note, the trace and the counters. */
export const DeepNoteExtension = Schema.Struct({
  bestNote: Schema.optional(Note),
  stopReason: StopReason,
  trace: PipelineResult.fields.trace,
  counters: Counters,
  collection: Schema.optional(Schema.String),
  elapsedMs: Schema.Number
})

export const ChatCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion"),
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(Schema.Struct({
    index: Schema.Int,
    message: Schema.Struct({ role: Schema.Literal("assistant"), content: Schema.String }),
    finish_reason: Schema.Literal("stop")
  })),
  usage: Usage,
  deepnote: DeepNoteExtension
}).annotations({ identifier: "ChatCompletion" })
export type ChatCompletion = typeof ChatCompletion.Type

export const Model = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("model"),
  created: Schema.Int,
  owned_by: Schema.String
})

export const ModelList = Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(Model) })
