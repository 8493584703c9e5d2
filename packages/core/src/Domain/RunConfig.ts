import { Schema } from "effect"
import { LanguageSetting } from "./Language.js"
import { PositiveInt, Probability } from "./NumberFields.js"
import { Profile, type Role } from "./Profile.js"
import { TaskType } from "./Task.js"

/** Sampling settings of one role. Absent fields inherit from `sampling` (the defaults of every role). */
export const RoleSampling = Schema.Struct({
  model: Schema.optional(Schema.String.pipe(Schema.nonEmptyString({ message: () => "model is empty" }))),
  temperature: Schema.optional(
    Schema.Number.pipe(Schema.between(0, 2, { message: () => "temperature must be between 0 and 2" }))
  ),
  topP: Schema.optional(Probability("topP").pipe(Schema.greaterThan(0, { message: () => "topP must be > 0" }))),
  maxTokens: Schema.optional(PositiveInt("maxTokens")),
  seed: Schema.optional(Schema.Int)
})
export type RoleSampling = typeof RoleSampling.Type

/** Fully resolved sampling settings for one call. */
export interface ResolvedSampling {
  readonly model: string | undefined
  readonly temperature: number
  readonly topP: number
  readonly maxTokens: number
  readonly seed: number
}

export const RerankerKind = Schema.Literal("none", "http")
export type RerankerKind = typeof RerankerKind.Type

/** Which rerank API an `http` reranker speaks (vLLM `/v1/rerank` is Jina/Cohere-compatible). */
export const RerankerApi = Schema.Literal("vllm-rerank", "vllm-score", "tei", "cohere")
export type RerankerApi = typeof RerankerApi.Type

/**
 * What recalls candidates: `bm25` (the FTS5 index), `dense` (the collection's vectors, nearest neighbours of the
 * queries' embeddings) or `hybrid` (reciprocal-rank fusion of both candidate lists), before the usual pipeline.
 */
export const RetrieverKind = Schema.Literal("bm25", "dense", "hybrid", "meilisearch")
export type RetrieverKind = typeof RetrieverKind.Type

/** The retriever of a config: unset is `bm25` (kept unset so configs stored before the knob hash as they did). */
export const retrieverOf = (config: { readonly retriever?: RetrieverKind | undefined }): RetrieverKind =>
  config.retriever ?? "bm25"

/** Whether a config's retrieval needs the collection's vectors and an embeddings server (`dense`, `hybrid`). */
export const usesVectors = (config: { readonly retriever?: RetrieverKind | undefined }): boolean => {
  const kind = retrieverOf(config)
  return kind === "dense" || kind === "hybrid"
}

/**
 * How the `deepnote` step sends a planned query q_t to the retriever: with the question (`q0+qt`, the user's rule: one
 * string "q0\nq_t"), alone (`qt`), or `both` (each planned query retrieved alone and with the question, the lists fused
 * with each planned query's best new candidate kept). Measured in benchmarks/retrieval/loop-recall.md.
 */
export const QueryComposition = Schema.Literal("q0+qt", "qt", "both")
export type QueryComposition = typeof QueryComposition.Type

export const Engine = Schema.Literal("extractive", "llm")
export type Engine = typeof Engine.Type

const RunConfigFields = Schema.Struct({
  profile: Schema.optionalWith(Profile, { default: () => "deepnote" as const }),
  engine: Schema.optionalWith(Engine, { default: () => "extractive" as const }),
  task: Schema.optionalWith(TaskType, { default: () => "multihop" as const }),
  language: Schema.optionalWith(LanguageSetting, { default: () => "auto" as const }),
  /** Passages kept after ranking, per retrieval. */
  topK: Schema.optionalWith(PositiveInt("topK"), { default: () => 5 }),
  /** Candidates recalled per query before fusion and rerank. */
  recallK: Schema.optionalWith(PositiveInt("recallK"), { default: () => 50 }),
  /** New queries the planner proposes per step. */
  numQueries: Schema.optionalWith(PositiveInt("numQueries"), { default: () => 2 }),
  maxStep: Schema.optionalWith(PositiveInt("maxStep"), { default: () => 3 }),
  /** Cumulative (not consecutive) rejected notes that stop the loop. */
  maxFailure: Schema.optionalWith(PositiveInt("maxFailure"), { default: () => 2 }),
  /** `deepnote` and `adaptive-note`: how each planned query is sent to the retriever (see `QueryComposition`). */
  queryComposition: Schema.optionalWith(QueryComposition, { default: () => "both" as const }),
  /**
   * The passage budget: unique passages a question may read, in every profile that retrieves (`paper`: the
   * reference's `max_top_k`; `adaptive-note`: T_RP). Exact: the retrieval that reaches it is cut to what remains and
   * the loop stops (`passage-cap`). Unset: the profile's default (`ProfileDefinition.defaults`; none = unbounded).
   */
  maxUniquePassages: Schema.optional(PositiveInt("maxUniquePassages")),
  /** `adaptive-note`: invalid updates (rejected notes) that stop the loop, T_IU; unset: the profile's default (1). */
  maxInvalidUpdates: Schema.optional(PositiveInt("maxInvalidUpdates")),
  /** `renact`: actions before the loop stops, T; `deeprag`: subqueries; unset: the profile's default (5 for both). */
  maxIterations: Schema.optional(PositiveInt("maxIterations")),
  /**
   * Candidate recall: `bm25`, `dense`, `hybrid` (RRF of both) or `meilisearch` (the configured index); unset is `bm25`
   * (`retrieverOf`), so configs stored before the knob hash as they did.
   */
  retriever: Schema.optional(RetrieverKind),
  reranker: Schema.optionalWith(RerankerKind, { default: () => "none" as const }),
  rerankerApi: Schema.optionalWith(RerankerApi, { default: () => "vllm-rerank" as const }),
  /** Base URL of the rerank server (required when `reranker` is `http`). */
  rerankerUrl: Schema.optional(Schema.String),
  rerankerModel: Schema.optional(Schema.String),
  /** BM25 column weights of the embedded index. */
  titleWeight: Schema.optionalWith(
    Schema.Number.pipe(Schema.nonNegative({ message: () => "titleWeight must be ≥ 0" })),
    { default: () => 5 }
  ),
  textWeight: Schema.optionalWith(Schema.Number.pipe(Schema.positive({ message: () => "textWeight must be > 0" })), {
    default: () => 1
  }),
  /** Defaults for every role (the paper's: temperature 0.1, top_p 0.9, max_tokens 1280, seed 66). */
  sampling: Schema.optionalWith(RoleSampling, { default: () => ({}) }),
  /** Per-role overrides of `sampling`. */
  roles: Schema.optionalWith(
    Schema.Struct({
      init: Schema.optional(RoleSampling),
      plan: Schema.optional(RoleSampling),
      update: Schema.optional(RoleSampling),
      judge: Schema.optional(RoleSampling),
      answer: Schema.optional(RoleSampling)
    }),
    { default: () => ({}) }
  )
})

/**
 * Every knob of a DeepNote run, with the paper's defaults. Cross-field rules name the field they blame.
 */
export const RunConfig = RunConfigFields.pipe(
  Schema.filter((c) => {
    if (c.maxFailure > c.maxStep) {
      return { path: ["maxFailure"], message: `maxFailure (${c.maxFailure}) must be ≤ maxStep (${c.maxStep})` }
    }
    if (c.topK > c.recallK) {
      return { path: ["topK"], message: `topK (${c.topK}) must be ≤ recallK (${c.recallK})` }
    }
    if (c.reranker === "http" && (c.rerankerUrl === undefined || c.rerankerUrl.length === 0)) {
      return { path: ["rerankerUrl"], message: "rerankerUrl is required when reranker is http" }
    }
    if (c.profile === "paper" && c.maxUniquePassages !== undefined && c.maxUniquePassages < c.topK) {
      return {
        path: ["maxUniquePassages"],
        message: `maxUniquePassages (${c.maxUniquePassages}) must be ≥ topK (${c.topK})`
      }
    }
    return true
  })
)
export type RunConfig = typeof RunConfig.Type
export type RunConfigInput = typeof RunConfig.Encoded

/** The defaults, as a decoded config. */
export const defaultRunConfig: RunConfig = Schema.decodeUnknownSync(RunConfig)({})

const paperSampling = { temperature: 0.1, topP: 0.9, maxTokens: 1280, seed: 66 } as const

/** The sampling settings a role uses under this config. */
export const samplingFor = (config: RunConfig, role: Role): ResolvedSampling => {
  const own = config.roles[role] ?? {}
  return {
    model: own.model ?? config.sampling.model,
    temperature: own.temperature ?? config.sampling.temperature ?? paperSampling.temperature,
    topP: own.topP ?? config.sampling.topP ?? paperSampling.topP,
    maxTokens: own.maxTokens ?? config.sampling.maxTokens ?? paperSampling.maxTokens,
    seed: own.seed ?? config.sampling.seed ?? paperSampling.seed
  }
}
