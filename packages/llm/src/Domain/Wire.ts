import { Schema } from "effect"
import type { Usage } from "./Chat.js"

/** Tolerant decoders of OpenAI-compatible replies: only the fields the client reads, everything else ignored. */

const WireUsage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  /** vLLM (with prefix caching and `--enable-prompt-tokens-details`) and OpenAI report prompt tokens served from cache. */
  prompt_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  )
})
/** Usage as a server reports it. */
export type WireUsage = typeof WireUsage.Type

/** The client's usage from a server's. */
export const usageFromWire = (u: WireUsage): Usage => {
  const cached = u.prompt_tokens_details?.cached_tokens
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    ...(cached == null ? {} : { cachedPromptTokens: cached })
  }
}

export const ChatCompletion = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.NonEmptyArray(Schema.Struct({
    message: Schema.Struct({ content: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }) }),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: Schema.optional(Schema.NullOr(WireUsage))
})

export const ChatChunk = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      delta: Schema.optionalWith(
        Schema.Struct({
          content: Schema.optional(Schema.NullOr(Schema.String)),
          /** vLLM's reasoning parsers put a model's thinking here, apart from the reply. */
          reasoning_content: Schema.optional(Schema.NullOr(Schema.String))
        }),
        { default: () => ({}) }
      ),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String))
    })),
    { default: () => [] }
  ),
  usage: Schema.optional(Schema.NullOr(WireUsage))
})

export const TextCompletion = Schema.Struct({
  model: Schema.optional(Schema.String),
  choices: Schema.Array(Schema.Struct({
    index: Schema.optionalWith(Schema.Number, { default: () => 0 }),
    text: Schema.String,
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: Schema.optional(Schema.NullOr(WireUsage))
})

/**
 * OpenAI's `/v1/embeddings` reply (vLLM, TEI's OpenAI route): one item per input with its `index`; the vector as
 * numbers, or base64 of little-endian float32 bytes (`encoding_format: "base64"`).
 */
export const EmbeddingList = Schema.Struct({
  model: Schema.optional(Schema.String),
  data: Schema.Array(Schema.Struct({
    index: Schema.Int,
    embedding: Schema.Union(Schema.Array(Schema.Number), Schema.String)
  })),
  usage: Schema.optional(Schema.NullOr(WireUsage))
})
export type EmbeddingList = typeof EmbeddingList.Type

export const ModelList = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    max_model_len: Schema.optional(Schema.NullOr(Schema.Number)),
    /** Not OpenAI nor vLLM: reported by the DeepNote simulator, honoured when present. */
    max_num_seqs: Schema.optional(Schema.NullOr(Schema.Number))
  }))
})

/** OpenAI/vLLM error bodies: `{"error": {"message"}}`, `{"message"}` or `{"detail"}`. */
export const ErrorBody = Schema.Union(
  Schema.Struct({ error: Schema.Struct({ message: Schema.String }) }),
  Schema.Struct({ message: Schema.String }),
  Schema.Struct({ detail: Schema.String })
)

const decodeErrorBody = Schema.decodeUnknownOption(Schema.parseJson(ErrorBody))

/** The human-readable message of an error reply, else the start of its raw body. */
export const errorMessage = (body: string): string => {
  const decoded = decodeErrorBody(body)
  if (decoded._tag === "None") return body.slice(0, 500)
  const v = decoded.value
  return "error" in v ? v.error.message : "message" in v ? v.message : v.detail
}
