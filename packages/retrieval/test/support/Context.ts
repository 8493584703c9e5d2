import {
  type CallContext,
  defaultRunConfig,
  type RetrievalRequest,
  type RunConfig,
  structuredFormats
} from "@deepnote-rag/core"

export const context = (config: Partial<RunConfig> = {}, questionId = "q1"): CallContext => ({
  questionId,
  runId: undefined,
  step: 0,
  language: "en",
  formats: structuredFormats,
  config: { ...defaultRunConfig, ...config }
})

export const request = (
  queries: ReadonlyArray<string>,
  options: {
    topK?: number
    recallK?: number
    exclude?: ReadonlyArray<string>
    config?: Partial<RunConfig>
    questionId?: string
  } = {}
): RetrievalRequest => ({
  queries,
  recallK: options.recallK ?? 50,
  topK: options.topK ?? 5,
  exclude: new Set(options.exclude ?? []),
  rerankQuery: queries[0] ?? "",
  context: context(options.config, options.questionId)
})
