import { countTokens } from "@deepnote-rag/llm"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { SimState } from "../SimState.js"
import { accessRefusal, countFault, earlyFault, generate, jsonError } from "./Generate.js"

/** The request bodies of the pooling routes (embeddings, rerank, score); extra fields are ignored, as in vLLM. */
const Common = {
  model: Schema.optional(Schema.NullOr(Schema.String)),
  priority: Schema.optional(Schema.NullOr(Schema.Int))
}

export const EmbeddingBody = Schema.Struct({
  ...Common,
  input: Schema.Union(Schema.String, Schema.Array(Schema.String)),
  dimensions: Schema.optional(Schema.NullOr(Schema.Int)),
  encoding_format: Schema.optional(Schema.NullOr(Schema.Literal("float", "base64")))
})

const Document = Schema.Union(Schema.String, Schema.Struct({ text: Schema.String }))

export const RerankBody = Schema.Struct({
  ...Common,
  query: Schema.String,
  documents: Schema.Array(Document),
  top_n: Schema.optional(Schema.NullOr(Schema.Int)),
  return_documents: Schema.optional(Schema.NullOr(Schema.Boolean))
})

const OneOrMany = Schema.Union(Schema.String, Schema.Array(Schema.String))
export const ScoreBody = Schema.Struct({ ...Common, text_1: OneOrMany, text_2: OneOrMany })

export const documentText = (d: typeof Document.Type): string => (typeof d === "string" ? d : d.text)

/**
 * Runs pooling work the way vLLM runs it: auth and model checks, a length check per input, the fault draw (early
 * faults answer at once; `malformed` and `garbage` are returned for the handler to apply), then each input as its
 * own prefill-only sequence through the scheduler, so embedding a batch costs steps like any prompt. Resolves with
 * the inputs' token counts, or with the response that ends the request.
 */
export const runPooling = (
  state: SimState,
  body: { readonly model?: string | null | undefined; readonly priority?: number | null | undefined },
  inputs: ReadonlyArray<string>,
  what: string
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    state.metrics.poolingRequests++
    const refuse = (response: HttpServerResponse.HttpServerResponse) => {
      state.metrics.rejected++
      return { _tag: "Refused", response } as const
    }
    const access = accessRefusal(state, request, body.model ?? undefined)
    if (access !== undefined) return refuse(access)
    if (inputs.length === 0) return refuse(jsonError(400, `${what}: the input must not be empty`))
    const tokens = inputs.map((text) => Math.max(1, countTokens(text)))
    const longest = Math.max(...tokens)
    if (longest > state.options.maxModelLen) {
      return refuse(jsonError(
        400,
        `This model's maximum context length is ${state.options.maxModelLen} tokens. However, you requested ${longest} tokens in the input for ${what} generation. Please reduce the length of the input.`
      ))
    }
    const fault = state.faults.next()
    const early = earlyFault(state, request, fault)
    if (early !== undefined) return { _tag: "Refused", response: yield* early } as const
    if (fault === "malformed" || fault === "garbage") countFault(state, fault)
    yield* Effect.forEach(tokens, (n) => generate(state, n, [], 0, body.priority ?? 0), {
      concurrency: "unbounded",
      discard: true
    })
    return { _tag: "Ran", tokens, fault } as const
  })

/** The reply of a pooling request under a `malformed` (truncated JSON) or `garbage` (no usable payload) fault. */
export const faultyReply = (fault: "malformed" | "garbage") =>
  fault === "malformed"
    ? HttpServerResponse.text(`{"object":"list","data":[{"object":`, { contentType: "application/json" })
    : HttpServerResponse.unsafeJson({ object: "list", data: [], results: [] })
