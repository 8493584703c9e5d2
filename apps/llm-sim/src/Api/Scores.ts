import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { cosine, embed } from "../HashedEmbedding.js"
import type { SimState } from "../SimState.js"
import { jsonError, modelOf } from "./Generate.js"
import { decodeBody } from "./Generate.js"
import { documentText, faultyReply, RerankBody, runPooling, ScoreBody } from "./Pooling.js"

const similarity = (state: SimState, a: string, b: string) =>
  cosine(embed(a, state.options.embeddingDim), embed(b, state.options.embeddingDim))

/**
 * `POST /v1/rerank` (also `/rerank`, `/v2/rerank`), in the shape vLLM shares with Jina and Cohere: `query`,
 * `documents` (strings or `{text}`), optional `top_n` and `return_documents` → `results: [{index, relevance_score,
 * document: {text}}]`, best first. The score is the cosine of the embeddings; each (query, document) pair is one
 * prefill-only sequence, as a cross-encoder reads them.
 */
export const rerankHandler = (state: SimState) =>
  Effect.gen(function*() {
    const body = yield* decodeBody(RerankBody, "rerank")
    if (HttpServerResponse.isServerResponse(body)) return body
    const documents = body.documents.map(documentText)
    const run = yield* runPooling(state, body, documents.map((d) => `${body.query}\n${d}`), "rerank")
    if (run._tag === "Refused") return run.response
    if (run.fault === "malformed" || run.fault === "garbage") return faultyReply(run.fault)
    const topN = body.top_n != null && body.top_n > 0 ? body.top_n : documents.length
    const results = documents
      .map((text, index) => ({ index, relevance_score: similarity(state, body.query, text), text }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, topN)
      .map(({ index, relevance_score, text }) => ({
        index,
        relevance_score,
        ...(body.return_documents === false ? {} : { document: { text } })
      }))
    return HttpServerResponse.unsafeJson({
      id: `rerank-sim-${state.nextId++}`,
      model: modelOf(state, body.model),
      usage: { total_tokens: run.tokens.reduce((n, t) => n + t, 0) },
      results
    })
  })

/**
 * `POST /score` (also `/v1/score`), vLLM's: `text_1` and `text_2`, each a string or a list. One `text_1` is scored
 * against every `text_2`; two lists of the same length pair up. `data: [{index, object: "score", score}]`.
 */
export const scoreHandler = (state: SimState) =>
  Effect.gen(function*() {
    const body = yield* decodeBody(ScoreBody, "score")
    if (HttpServerResponse.isServerResponse(body)) return body
    const left = typeof body.text_1 === "string" ? [body.text_1] : body.text_1
    const right = typeof body.text_2 === "string" ? [body.text_2] : body.text_2
    if (left.length !== 1 && left.length !== right.length) {
      state.metrics.rejected++
      return jsonError(400, `text_1 (${left.length} texts) must be one text or as many as text_2 (${right.length})`)
    }
    const pairs = right.map((r, i) => [left.length === 1 ? left[0]! : left[i]!, r] as const)
    const run = yield* runPooling(state, body, pairs.map(([a, b]) => `${a}\n${b}`), "score")
    if (run._tag === "Refused") return run.response
    if (run.fault === "malformed" || run.fault === "garbage") return faultyReply(run.fault)
    const total = run.tokens.reduce((n, t) => n + t, 0)
    return HttpServerResponse.unsafeJson({
      id: `score-sim-${state.nextId++}`,
      object: "list",
      created: Math.floor(Date.now() / 1000),
      model: modelOf(state, body.model),
      data: pairs.map(([a, b], index) => ({ index, object: "score", score: similarity(state, a, b) })),
      usage: { prompt_tokens: total, total_tokens: total, completion_tokens: 0 }
    })
  })
