import {
  type Answerer,
  type Judge,
  type NoteWriter,
  type QueryPlanner,
  Retriever,
  type RunConfig
} from "@deepnote/core"
import { Extractive } from "@deepnote/extractive"
import { LlmClient, type LlmClientService, LlmEngine, type LlmHealth, type LlmSettings } from "@deepnote/llm"
import {
  Collections,
  FtsRetriever,
  MeiliClient,
  type MeiliOptions,
  MeiliRetriever,
  Reranker
} from "@deepnote/retrieval"
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { type ConfigError, Context, Effect, Layer, Option, type Scope } from "effect"

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
}

const roles = <E>(engine: Name, llm: Layer.Layer<LlmSettings, E>): Layer.Layer<Roles, E> =>
  engine === "extractive" ? Extractive.layer : LlmEngine.layer.pipe(Layer.provide(llm))

const retriever = (
  config: RunConfig,
  collection: string,
  http: Layer.Layer<HttpClient.HttpClient>,
  meili: MeiliOptions | undefined
): Layer.Layer<Retriever, ConfigError.ConfigError, Collections> => {
  const reranked = <E, R>(first: Layer.Layer<Retriever, E, R>) =>
    config.reranker === "http" ? first.pipe(Layer.provide(Reranker.layerConfig), Layer.provide(http)) : first
  switch (config.retriever) {
    case "bm25":
      return reranked(FtsRetriever.layer({ collection }))
    case "meilisearch":
      return reranked(
        Layer.effect(Retriever, MeiliRetriever.make).pipe(
          Layer.provide(meili === undefined ? MeiliClient.layerConfig : MeiliClient.layer(meili)),
          Layer.provide(http)
        )
      )
  }
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
    retriever(options.config, options.collection, options.rerankerHttp ?? NodeHttpClient.layerUndici, options.meili)
  )

/** An engine whose roles are built once and shared by many questions and runs (the HTTP app). */
export interface Shared {
  readonly engine: Name
  /** The LLM servers' health (for readiness probes and error answers); none for the extractive engine. */
  readonly llmHealth: Option.Option<Effect.Effect<LlmHealth>>
  /** The shared LLM client (model checks for the facts a run's manifest records); none for the extractive engine. */
  readonly llmClient: Option.Option<LlmClientService>
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
}

/**
 * Builds the roles once (one LLM client pool, one cache) and the reranker's connection pool once, for the scope's
 * lifetime; each `layerFor` adds a retriever over the `Collections` in context here.
 */
export const make = <E>(options: SharedOptions<E>): Effect.Effect<Shared, E, Collections | Scope.Scope> =>
  Effect.gen(function*() {
    const built = yield* Layer.build(roles(options.engine, options.llm))
    const shared = Layer.succeedContext(built)
    const collections = Layer.succeed(Collections, yield* Collections)
    const rerankerHttp = Layer.succeedContext(yield* Layer.build(options.rerankerHttp ?? NodeHttpClient.layerUndici))
    return {
      engine: options.engine,
      llmHealth: Option.map(Context.getOption(built, LlmClient), (client) => client.health),
      llmClient: Context.getOption(built, LlmClient),
      layerFor: (config, collection) =>
        Layer.merge(
          shared,
          retriever(config, collection, rerankerHttp, options.meili).pipe(Layer.provide(collections))
        )
    }
  })
