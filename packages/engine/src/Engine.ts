import {
  type Answerer,
  Embedder,
  type Judge,
  type NoteWriter,
  type QueryPlanner,
  Retriever,
  retrieverOf,
  type RunConfig
} from "@deepnote-rag/core"
import { Extractive } from "@deepnote-rag/extractive"
import {
  embeddingsSettingsFromConfig,
  EmbeddingsSettingsSchema,
  HttpEmbedder,
  LlmClient,
  type LlmClientService,
  LlmEngine,
  type LlmHealth,
  type LlmSettings
} from "@deepnote-rag/llm"
import {
  Collections,
  DenseRetriever,
  FtsRetriever,
  HybridRetriever,
  MeiliClient,
  type MeiliOptions,
  MeiliRetriever,
  Reranker
} from "@deepnote-rag/retrieval"
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { type ConfigError, Context, Effect, Layer, Option, Schema, type Scope } from "effect"

/** The four roles of an engine. */
export type Roles = NoteWriter | QueryPlanner | Judge | Answerer

/** What a question is answered with: the retriever and the four roles. */
export type EngineServices = Retriever | Roles

/** Which engine answers: the offline extractive baseline or LLM servers. */
export type Name = RunConfig["engine"]

export interface Options<E> {
  /** The configuration: its `engine` picks the roles, its `reranker` the retriever's reranking. */
  readonly config: RunConfig
  /** The collection the retriever searches (a name `Collections` knows). */
  readonly collection: string
  /** The LLM servers' settings: only built when `config.engine` is `llm`. */
  readonly llm: Layer.Layer<LlmSettings, E>
  /** The HTTP client of the reranker and Meilisearch; default: a connection pool of its own. */
  readonly rerankerHttp?: Layer.Layer<HttpClient.HttpClient> | undefined
  /** The Meilisearch index of `retriever: meilisearch`; default: from `DEEPNOTE_MEILI_*` (`meiliOptionsConfig`). */
  readonly meili?: MeiliOptions | undefined
  /**
   * The embeddings servers of dense and hybrid retrieval (a layer of the core `Embedder`); default: `HttpEmbedder`
   * over `DEEPNOTE_EMBEDDINGS_*`, or none when `DEEPNOTE_EMBEDDINGS_URL` is unset (a dense search then says so).
   */
  readonly embedder?: Layer.Layer<never, ConfigError.ConfigError> | undefined
}

/**
 * The operator's embeddings servers (`DEEPNOTE_EMBEDDINGS_*`) as an `Embedder`, or nothing when none is set. Typed
 * as providing nothing: the dense retrievers read the `Embedder` as optional and say what is missing.
 */
export const embedderFromConfig: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(
    embeddingsSettingsFromConfig,
    Option.match({
      onNone: () => Layer.empty,
      onSome: (settings) => HttpEmbedder.layer(Schema.encodeSync(EmbeddingsSettingsSchema)(settings))
    })
  )
)

const roles = <E>(engine: Name, llm: Layer.Layer<LlmSettings, E>): Layer.Layer<Roles, E> =>
  engine === "extractive" ? Extractive.layer : LlmEngine.layer.pipe(Layer.provide(llm))

/** The first stage, by `config.retriever`: BM25, the collection's vectors, both fused, or a Meilisearch index. */
const recall = (
  config: RunConfig,
  collection: string,
  embedder: Layer.Layer<never, ConfigError.ConfigError>,
  meili: MeiliOptions | undefined,
  http: Layer.Layer<HttpClient.HttpClient>
): Layer.Layer<Retriever, ConfigError.ConfigError, Collections> => {
  switch (retrieverOf(config)) {
    case "bm25":
      return FtsRetriever.layer({ collection })
    case "dense":
      return DenseRetriever.layer({ collection }).pipe(Layer.provide(embedder))
    case "hybrid":
      return HybridRetriever.layer({ collection }).pipe(Layer.provide(embedder))
    case "meilisearch":
      return Layer.effect(Retriever, MeiliRetriever.make).pipe(
        Layer.provide(meili === undefined ? MeiliClient.layerConfig : MeiliClient.layer(meili)),
        Layer.provide(http)
      )
  }
}

const retriever = (
  config: RunConfig,
  collection: string,
  http: Layer.Layer<HttpClient.HttpClient>,
  meili: MeiliOptions | undefined,
  embedder: Layer.Layer<never, ConfigError.ConfigError>
): Layer.Layer<Retriever, ConfigError.ConfigError, Collections> => {
  const first = recall(config, collection, embedder, meili, http)
  return config.reranker === "http" ? first.pipe(Layer.provide(Reranker.layerConfig), Layer.provide(http)) : first
}

/**
 * The engine of one question or one run: the four roles of `config.engine` and the retriever of `config.retriever`
 * (`bm25`: over `collection`; `meilisearch`: over `options.meili`'s index) with the HTTP reranker when
 * `config.reranker` is `http` (configured by `DEEPNOTE_RERANKER_*`). The LLM engine's client, usage
 * ledger and cache stay in the built context (a run journals each call's tokens from the ledger).
 */
export const layer = <E>(
  options: Options<E>
): Layer.Layer<EngineServices, E | ConfigError.ConfigError, Collections> =>
  Layer.merge(
    roles(options.config.engine, options.llm),
    retriever(
      options.config,
      options.collection,
      options.rerankerHttp ?? NodeHttpClient.layerUndici,
      options.meili,
      options.embedder ?? embedderFromConfig
    )
  )

/** An engine whose roles are built once and shared by many questions and runs (the HTTP app). */
export interface Shared {
  readonly engine: Name
  /** The LLM servers' health (for readiness probes and error answers); none for the extractive engine. */
  readonly llmHealth: Option.Option<Effect.Effect<LlmHealth>>
  /** The shared LLM client (model checks for the facts a run's manifest records); none for the extractive engine. */
  readonly llmClient: Option.Option<LlmClientService>
  /** Whether an embeddings server is configured (dense and hybrid retrieval can work). */
  readonly dense: boolean
  /**
   * The shared roles and a retriever over `collection` (or the shared Meilisearch index), for one question or run;
   * `config.engine` must be the shared engine's (the roles are not rebuilt).
   */
  readonly layerFor: (config: RunConfig, collection: string) => Layer.Layer<EngineServices, ConfigError.ConfigError>
}

export interface SharedOptions<E> {
  readonly engine: Name
  /** The LLM servers' settings: only built when `engine` is `llm`. */
  readonly llm: Layer.Layer<LlmSettings, E>
  /** The HTTP client of the reranker and Meilisearch; default: one connection pool, shared by every retriever. */
  readonly rerankerHttp?: Layer.Layer<HttpClient.HttpClient> | undefined
  /** The Meilisearch index of `retriever: meilisearch`; default: from `DEEPNOTE_MEILI_*`. */
  readonly meili?: MeiliOptions | undefined
  /** The embeddings servers; default `embedderFromConfig`, built here once and shared by every retriever. */
  readonly embedder?: Layer.Layer<never, ConfigError.ConfigError> | undefined
}

/**
 * Builds the roles once (one LLM client pool, one cache) and the reranker's connection pool once, for the scope's
 * lifetime; each `layerFor` adds a retriever over the `Collections` in context here.
 */
export const make = <E>(
  options: SharedOptions<E>
): Effect.Effect<Shared, E | ConfigError.ConfigError, Collections | Scope.Scope> =>
  Effect.gen(function*() {
    const built = yield* Layer.build(roles(options.engine, options.llm))
    const collections = Layer.succeed(Collections, yield* Collections)
    const rerankerHttp = Layer.succeedContext(yield* Layer.build(options.rerankerHttp ?? NodeHttpClient.layerUndici))
    const embedderContext = yield* Layer.build(options.embedder ?? embedderFromConfig)
    const embedder = Layer.succeedContext(embedderContext)
    return {
      engine: options.engine,
      llmHealth: Option.map(Context.getOption(built, LlmClient), (client) => client.health),
      llmClient: Context.getOption(built, LlmClient),
      dense: Option.isSome(Context.getOption(embedderContext, Embedder)),
      // one scoped layer: the retriever built in the caller's scope, added to the shared roles' context. Not a
      // `Layer.merge` (a parallel build, a fiber per part): a question interrupted half-way through such a build, per
      // question or request, could stay suspended for good (CHANGELOG, "Fixed").
      layerFor: (config, collection) =>
        Layer.scopedContext(
          Effect.map(
            Layer.build(
              retriever(config, collection, rerankerHttp, options.meili, embedder).pipe(Layer.provide(collections))
            ),
            (retrieverContext) => Context.merge(built, retrieverContext)
          )
        )
    }
  })
