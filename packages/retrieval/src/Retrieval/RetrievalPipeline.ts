import {
  Passage,
  passageLabel,
  RetrievalError,
  type RetrievalRequest,
  Retriever,
  type RetrieverService
} from "@deepnote/core"
import { Effect, Option } from "effect"
import { Reranker } from "../Rerank/Reranker.js"
import { fuseQueries } from "./Fusion.js"

/** A recalled passage with the score of the backend that found it. */
export interface Candidate {
  readonly id: string
  readonly title: string
  readonly text: string
  readonly score: number
}

export interface PipelineSpec {
  /** `Passage.source` of every result (the collection, index or file name). */
  readonly source: string
  /** The first stage: up to `limit` candidates for one query, best first. */
  readonly recall: (
    query: string,
    limit: number,
    request: RetrievalRequest
  ) => Effect.Effect<ReadonlyArray<Candidate>, RetrievalError>
  /** Queries recalled at once. Default 1 (the embedded index is synchronous anyway). */
  readonly concurrency?: number
}

/**
 * The retrieval pipeline (docs/algorithm.md) over any recall backend: `recallK` candidates per query (plus as many as are excluded, so
 * exclusion does not shrink the pool) → drop passages in `request.exclude` → reciprocal-rank fusion across queries
 * (k = 60), each query's best new candidate first (`fuseQueries`) → keep `recallK` → rerank with the HTTP cross-encoder when `config.reranker` is `http` →
 * `topK`. `Passage.score` is the score of the last stage that ordered the list (backend, RRF or reranker).
 * The `Reranker` service is optional: it is only needed when a request asks for `http` reranking.
 */
export const retrievalPipeline = (spec: PipelineSpec): Effect.Effect<RetrieverService> =>
  Effect.gen(function*() {
    const reranker = yield* Effect.serviceOption(Reranker)
    const search = Effect.fnUntraced(function*(request: RetrievalRequest) {
      const queries = Array.from(new Set(request.queries.map((q) => q.trim()).filter((q) => q.length > 0)))
      if (queries.length === 0) return []
      const limit = request.recallK + request.exclude.size
      const recalled = yield* Effect.forEach(queries, (q) => spec.recall(q, limit, request), {
        concurrency: spec.concurrency ?? 1
      })
      // seen passages go before fusion, so ranks (and each list's first) count new evidence only
      const lists = recalled.map((list) => list.filter((c) => !request.exclude.has(c.id)))
      const merged = lists.length === 1 ? lists[0]! : fuseQueries(lists)
      const pool = merged.slice(0, request.recallK)
      const passages = pool.map((c) =>
        new Passage({ id: c.id, title: c.title, text: c.text, source: spec.source, score: c.score })
      )
      const config = request.context.config
      if (config.reranker !== "http") return passages.slice(0, request.topK)
      if (Option.isNone(reranker)) {
        return yield* new RetrievalError({ message: "reranker is http but no Reranker layer was provided" })
      }
      const ranked = yield* reranker.value.rerank(
        { api: config.rerankerApi, url: config.rerankerUrl ?? "", model: config.rerankerModel },
        request.rerankQuery,
        passages.map(passageLabel),
        request.topK
      ).pipe(Effect.mapError((cause) => new RetrievalError({ message: cause.message, cause })))
      return ranked.map((r) => new Passage({ ...passages[r.index]!, score: r.score }))
    })
    return Retriever.make({ search })
  })
