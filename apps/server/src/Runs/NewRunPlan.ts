import { type ConfigPatch, type Tenant, ValidationError } from "@deepnote-rag/api"
import { profiles, withoutCredentials } from "@deepnote-rag/core"
import { promptSetHash } from "@deepnote-rag/engine"
import type { DatasetFormat } from "@deepnote-rag/eval"
import { LlmClient } from "@deepnote-rag/llm"
import type { Collections } from "@deepnote-rag/retrieval"
import { engineFacts, type NewRun } from "@deepnote-rag/runs"
import { Effect, Option } from "effect"
import { storedName, type TenantCollections } from "../Collections/TenantCollections.js"
import { modelCheckFailure } from "../Engine/LlmFailure.js"
import { requireEmbeddings, resolveRequestConfig } from "../Engine/RequestConfig.js"
import type { ServerEngineService } from "../Engine/ServerEngine.js"
import { storeFailure } from "../Http/StoreFailure.js"
import type { ServerSettingsData } from "../ServerSettings.js"

/** A run asked for over HTTP (`POST /v1/runs`), its dataset saved to `datasetFile`. */
export interface NewRunInput {
  readonly datasetFile: string
  readonly datasetField: string
  readonly collection?: string | undefined
  readonly format?: DatasetFormat | undefined
  readonly limit?: number | undefined
  readonly skipBadLines?: boolean | undefined
  readonly label?: string | undefined
  readonly concurrency?: number | undefined
  readonly config?: ConfigPatch | undefined
}

/**
 * What a tenant's new run will be, checked before it is admitted (400 for what the request got wrong): its config
 * (the request's over the server's defaults), what it searches — the tenant's collection with its content fingerprint
 * and embeddings model, or the server's Meilisearch index — and the LLM engine's models (each role's must be served;
 * the manifest records which ones answered), as `createRun` takes them.
 */
export const makeNewRunPlanner = (deps: {
  readonly settings: ServerSettingsData
  readonly collections: TenantCollections["Type"]
  readonly index: Collections["Type"]
  readonly engine: ServerEngineService
}) =>
(tenant: Tenant, input: NewRunInput) =>
  Effect.gen(function*() {
    const { collections, engine, index, settings } = deps
    const config = yield* resolveRequestConfig(settings.defaults, input.config, "config", settings.meili !== undefined)
    const name = input.collection ?? "default"
    const meili = config.retriever === "meilisearch" ? settings.meili : undefined
    if (meili !== undefined && input.collection !== undefined) {
      return yield* ValidationError.of(
        "collection: retriever meilisearch searches the server's Meilisearch index, not a collection",
        "collection"
      )
    }
    const retrieves = profiles[config.profile].retrieves
    const searchesCollection = retrieves && meili === undefined
    const stored = !searchesCollection ? storedName(tenant, name) : yield* collections.require(tenant, name)
    const fingerprint = !searchesCollection
      ? undefined
      : yield* index.fingerprint(stored).pipe(Effect.mapError(storeFailure))
    // dense and hybrid: the collection's embeddings model (recorded), and no run over a collection without vectors
    if (retrieves) yield* requireEmbeddings(engine.dense, config, "config")
    const embeddings = !retrieves ? undefined : yield* collections.embeddings(config, name, stored)
    const facts = yield* Option.match(engine.llmClient, {
      onNone: () => Effect.succeed(undefined),
      onSome: (client) =>
        engineFacts(config).pipe(Effect.provideService(LlmClient, client), Effect.mapError(modelCheckFailure))
    })
    const { limits } = settings
    const plan: NewRun = {
      dataset: input.datasetFile,
      format: input.format,
      limit: input.limit,
      onBadLine: input.skipBadLines === true ? "skip" : "fail",
      config,
      collection: stored,
      promptSetHash: promptSetHash(config),
      label: input.label,
      concurrency: Math.min(input.concurrency ?? limits.runConcurrency, limits.maxRunConcurrency),
      collectionFingerprint: fingerprint,
      meilisearch: meili === undefined ? undefined : { host: withoutCredentials(meili.host), index: meili.index },
      embeddings,
      execution: "queue",
      llm: facts
    }
    return plan
  })
