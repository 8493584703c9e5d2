import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { embed, toBase64 } from "../HashedEmbedding.js"
import type { SimState } from "../SimState.js"
import { jsonError, modelOf } from "./Generate.js"
import { decodeBody } from "./Generate.js"
import { EmbeddingBody, faultyReply, runPooling } from "./Pooling.js"

/**
 * `POST /v1/embeddings` in OpenAI's shape: `input` a string or a list of strings, optional `dimensions` (at most
 * `embeddingDim`; the text is hashed into that many buckets) and `encoding_format` (`float`, or `base64`:
 * little-endian float32 bytes, as OpenAI sends them). Vectors are `HashedEmbedding.embed`: deterministic and
 * meaningful for retrieval.
 */
export const embeddingsHandler = (state: SimState) =>
  Effect.gen(function*() {
    const body = yield* decodeBody(EmbeddingBody, "embedding")
    if (HttpServerResponse.isServerResponse(body)) return body
    const inputs = typeof body.input === "string" ? [body.input] : body.input
    const dim = body.dimensions ?? state.options.embeddingDim
    if (dim < 1 || dim > state.options.embeddingDim) {
      state.metrics.rejected++
      return jsonError(400, `dimensions must be between 1 and ${state.options.embeddingDim}, got ${dim}`)
    }
    const run = yield* runPooling(state, body, inputs, "embedding")
    if (run._tag === "Refused") return run.response
    if (run.fault === "malformed" || run.fault === "garbage") return faultyReply(run.fault)
    const total = run.tokens.reduce((n, t) => n + t, 0)
    return HttpServerResponse.unsafeJson({
      object: "list",
      data: inputs.map((text, index) => {
        const vector = embed(text, dim)
        return { object: "embedding", index, embedding: body.encoding_format === "base64" ? toBase64(vector) : vector }
      }),
      model: modelOf(state, body.model),
      usage: { prompt_tokens: total, total_tokens: total }
    })
  })
