import type { RerankerApi } from "@deepnote-rag/core"
import { Either, type ParseResult, Schema } from "effect"

/** One scored document of a rerank reply: its index in the request and its relevance (higher is better). */
export interface RerankResult {
  readonly index: number
  readonly score: number
}

export interface RerankInput {
  readonly model: string | undefined
  readonly query: string
  readonly documents: ReadonlyArray<string>
  readonly topN: number
}

/** How one rerank API is called: its path, request body and reply schema. */
export interface RerankApiSpec {
  readonly path: string
  readonly body: (input: RerankInput) => unknown
  readonly decode: (json: unknown) => Either.Either<ReadonlyArray<RerankResult>, ParseResult.ParseError>
}

const Index = Schema.Int.pipe(Schema.nonNegative())

/** Jina/Cohere reply: `{results: [{index, relevance_score}]}` (vLLM `/v1/rerank`, Cohere `/v1/rerank`). */
const CohereReply = Schema.Struct({
  results: Schema.Array(Schema.Struct({ index: Index, relevance_score: Schema.Number }))
})
/** vLLM `/score` reply: `{data: [{index, score}]}`. */
const ScoreReply = Schema.Struct({ data: Schema.Array(Schema.Struct({ index: Index, score: Schema.Number })) })
/** TEI `/rerank` reply: `[{index, score}]`. */
const TeiReply = Schema.Array(Schema.Struct({ index: Index, score: Schema.Number }))

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, results: (reply: A) => ReadonlyArray<RerankResult>) => {
  const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "ignore" })
  return (json: unknown) => Either.map(decode(json), results)
}

const withModel = (model: string | undefined) => (model === undefined ? {} : { model })

const cohereStyle: RerankApiSpec = {
  path: "/v1/rerank",
  body: ({ documents, model, query, topN }) => ({ ...withModel(model), query, documents, top_n: topN }),
  decode: decodeWith(CohereReply, (r) => r.results.map((x) => ({ index: x.index, score: x.relevance_score })))
}

/** The rerank APIs DeepNote speaks, selected by `RunConfig.rerankerApi`. */
export const rerankApis: { readonly [A in RerankerApi]: RerankApiSpec } = {
  "vllm-rerank": cohereStyle,
  cohere: cohereStyle,
  "vllm-score": {
    path: "/score",
    body: ({ documents, model, query }) => ({ ...withModel(model), text_1: query, text_2: documents }),
    decode: decodeWith(ScoreReply, (r) => r.data)
  },
  tei: {
    path: "/rerank",
    body: ({ documents, query }) => ({ query, texts: documents, truncate: true }),
    decode: decodeWith(TeiReply, (r) => r)
  }
}

/** The endpoint URL: the base URL plus the API path, unless the base already ends with it (or with `/v1`). */
export const endpointUrl = (base: string, path: string): string => {
  const trimmed = base.replace(/\/+$/u, "")
  if (trimmed.endsWith(path)) return trimmed
  if (path.startsWith("/v1/") && trimmed.endsWith("/v1")) return trimmed + path.slice(3)
  return trimmed + path
}
