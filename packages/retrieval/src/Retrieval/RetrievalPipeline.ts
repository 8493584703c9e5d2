import {
  Passage,
  passageLabel,
  RetrievalError,
  type RetrievalRequest,
  Retriever,
  type RetrieverService
} from "@deepnote-rag/core"
import { Effect, Option } from "effect"
import { Reranker } from "../Rerank/Reranker.js"
import { fuseQueries, leadsFirst } from "./Fusion.js"

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
 * The retrieval pipeline (docs/algorithm.md) over any recall backend: `recallK` candidates per query and per lead
 * (plus as many as are excluded, so exclusion does not shrink the pool) → drop passages in `request.exclude` →
 * reciprocal-rank fusion across queries (k = 60), each query's best new candidate first (`fuseQueries`), each lead's
 * best new candidate before them all (`leadsFirst`) → keep `recallK` → rerank with the HTTP cross-encoder when
 * `config.reranker` is `http` → `topK`. `Passage.score` is the score of the last stage that ordered the list
 * (backend, RRF or reranker; a lead's first keeps its backend score).
 * The `Reranker` service is optional: it is only needed when a request asks for `http` reranking.
 */
export const retrievalPipeline = (spec: PipelineSpec): Effect.Effect<RetrieverService> =>
  Effect.gen(function*() {
    const reranker = yield* Effect.serviceOption(Reranker)
    const search = Effect.fnUntraced(function*(request: RetrievalRequest) {
      const clean = (qs: ReadonlyArray<string>) =>
        Array.from(new Set(qs.map((q) => q.trim()).filter((q) => q.length > 0)))
      const queries = clean(request.queries)
      const leads = clean(request.leads ?? [])
      if (queries.length === 0 && leads.length === 0) return []
      const limit = request.recallK + request.exclude.size
      const recalled = yield* Effect.forEach([...leads, ...queries], (q) => spec.recall(q, limit, request), {
        concurrency: spec.concurrency ?? 1
      })
      // seen passages go before fusion, so ranks (and each list's first) count new evidence only
      const lists = recalled.map((list) => list.filter((c) => !request.exclude.has(c.id)))
      const main = lists.slice(leads.length)
      const merged = leadsFirst(lists.slice(0, leads.length), main.length === 1 ? main[0]! : fuseQueries(main))
      const pool = merged.slice(0, request.recallK)
      // the candidates' fields are typed and were checked where they were read: no second validation (≈ 2 % of a run's
      // allocation, benchmarks/cpu)
      const passages = pool.map((c) =>
        new Passage({ id: c.id, title: c.title, text: c.text, source: spec.source, score: c.score }, {
          disableValidation: true
        })
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
