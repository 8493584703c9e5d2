import { Context, Effect, Layer } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { RetrievalError } from "../Domain/Errors.js"
import type { Passage } from "../Domain/Passage.js"
import { annotateHotSpan, withHotSpan } from "../Observability/HotSpan.js"

export interface RetrievalRequest {
  /** One or more query strings; candidates of several queries are fused (reciprocal-rank fusion). */
  readonly queries: ReadonlyArray<string>
  /**
   * Queries retrieved for their best new candidate only, which goes first, ahead of the fusion of `queries` (the
   * `both` composition: each planned query alone, whose first find the question's terms cannot push out). Optional.
   */
  readonly leads?: ReadonlyArray<string> | undefined
  /** Candidates recalled per query before fusion, dedup and rerank. */
  readonly recallK: number
  /** Passages returned. */
  readonly topK: number
  /** Passage ids already seen by this question: dropped before rerank so new evidence enters. */
  readonly exclude: ReadonlySet<string>
  /** The text a reranker scores candidates against. */
  readonly rerankQuery: string
  readonly context: CallContext
}

export interface RetrieverService {
  readonly search: (request: RetrievalRequest) => Effect.Effect<ReadonlyArray<Passage>, RetrievalError>
}

/** Finds passages for queries: recall → fusion → dedup → optional rerank → top-k. */
export class Retriever extends Context.Tag("@deepnote-rag/core/Retriever")<Retriever, RetrieverService>() {
  /** Wraps an implementation so every call is a `Retriever.search` span. */
  static readonly make = (impl: RetrieverService): RetrieverService => ({
    search: Effect.fnUntraced(function*(request: RetrievalRequest) {
      yield* annotateHotSpan({
        "deepnote.step": request.context.step,
        "deepnote.item.id": request.context.questionId,
        "deepnote.retrieval.queries": request.queries.length,
        "deepnote.retrieval.top_k": request.topK
      })
      const passages = yield* impl.search(request)
      yield* annotateHotSpan({ "deepnote.retrieval.returned": passages.length })
      return passages
    }, withHotSpan("Retriever.search"))
  })

  /** A test double's layer: the implementation wrapped in the same spans as a real one. */
  static readonly layerTest = (impl: RetrieverService) => Layer.succeed(Retriever, Retriever.make(impl))
}
