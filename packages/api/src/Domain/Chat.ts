import { Counters, Note, PipelineResult, StopReason } from "@deepnote-rag/core"
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
 * Sampling fields (temperature, top_p, max_tokens, …) are checked for range and otherwise ignored: the run config
 * governs the roles. Features the pipeline cannot honour (`n > 1`, `tools`, `tool_choice`, `logprobs`, a
 * `response_format` other than text) are decoded here so that the handler refuses them by name.
 */
const Optional = <A, I>(schema: Schema.Schema<A, I>) => Schema.optionalWith(schema, { nullable: true })

export const ChatCompletionRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(ChatMessage).pipe(Schema.minItems(1, { message: () => "must hold at least one message" })),
  n: Optional(Schema.Int),
  tools: Optional(Schema.Array(Schema.Unknown)),
  tool_choice: Optional(Schema.Unknown),
  functions: Optional(Schema.Array(Schema.Unknown)),
  function_call: Optional(Schema.Unknown),
  logprobs: Optional(Schema.Boolean),
  top_logprobs: Optional(Schema.Int),
  response_format: Optional(Schema.Struct({ type: Schema.String })),
  temperature: Optional(Schema.Number),
  top_p: Optional(Schema.Number),
  max_tokens: Optional(Schema.Int),
  max_completion_tokens: Optional(Schema.Int),
  presence_penalty: Optional(Schema.Number),
  frequency_penalty: Optional(Schema.Number),
  stream: Schema.optionalWith(Schema.Boolean, { nullable: true }),
  stream_options: Schema.optionalWith(Schema.Struct({ include_usage: Schema.optional(Schema.Boolean) }), {
    nullable: true
  }),
  deepnote: Schema.optional(
    Schema.Struct({ collection: Schema.optional(CollectionName), config: Schema.optional(ConfigPatch) })
  )
}).annotations({ identifier: "ChatCompletionRequest" })
export type ChatCompletionRequest = typeof ChatCompletionRequest.Type

/** Tokens the LLM servers reported for every role call of the question (cache hits cost none). */
export const Usage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int,
  prompt_tokens_details: Schema.optional(Schema.Struct({ cached_tokens: Schema.Int }))
})

/** One role's share of the usage: its calls and their tokens. */
export const RoleUsage = Schema.Struct({
  calls: Schema.Int,
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  cached_tokens: Schema.Int
})

/** DeepNote's extension of a completion: the best note, the trace and the counters. */
export const DeepNoteExtension = Schema.Struct({
  bestNote: Schema.optional(Note),
  stopReason: StopReason,
  trace: PipelineResult.fields.trace,
  counters: Counters,
  collection: Schema.optional(Schema.String),
  elapsedMs: Schema.Number,
  /** The usage by role (`init`, `plan`, `update`, `judge`, `answer`); sums to `usage`. */
  usageByRole: Schema.optional(Schema.Record({ key: Schema.String, value: RoleUsage }))
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
export type Usage = typeof Usage.Type
export type RoleUsage = typeof RoleUsage.Type
