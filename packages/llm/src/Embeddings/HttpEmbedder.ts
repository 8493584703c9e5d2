/**
 * The core `Embedder` over OpenAI-compatible `/v1/embeddings` servers (vLLM `--task embed`, TEI's OpenAI route). It is
 * the LLM client's machinery with another request: the same endpoint pool (routing, ejection and half-open recovery,
 * outage waits), attempt deadline, retry decisions, backoff and retry throttle (`Client/Executor.ts`), with a pool of
 * its own over the embeddings servers of `DEEPNOTE_EMBEDDINGS_*`.
 */
import {
  Embedder,
  type EmbedderService,
  EmbeddingError,
  type EmbeddingModel,
  type EmbedPurpose
} from "@deepnote-rag/core"
import { HttpClient } from "@effect/platform"
import { Chunk, ConfigError, Effect, FiberRef, Layer, Option, Schema, type Scope } from "effect"
import type { ExecutorTags } from "../Client/Call.js"
import { EndpointPool } from "../Client/EndpointPool.js"
import { makeExecutor } from "../Client/Executor.js"
import { embeddingsRequest } from "../Client/Requests.js"
import { currentLlmCallPolicy, resolve as resolvePolicy } from "../LlmCallPolicy.js"
import { httpClientLayer } from "../LlmHttp.js"
import { LlmSettings } from "../LlmSettings.js"
import {
  type EmbeddingsSettingsData,
  embeddingsSettingsFromConfig,
  type EmbeddingsSettingsInput,
  EmbeddingsSettingsSchema,
  poolSettings
} from "./EmbeddingsSettings.js"
import { toVectors } from "./EmbeddingVectors.js"

const tags: ExecutorTags = { role: "embed" }

/** Builds the embedder over the `HttpClient` in context; its endpoint pool's probes run until the scope closes. */
export const make = (
  settings: EmbeddingsSettingsData
): Effect.Effect<EmbedderService, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const pooled = poolSettings(settings)
    const pool = yield* Effect.provideService(EndpointPool.make, LlmSettings, pooled)
    // the attempt span is the HTTP span, as in `LlmClient`
    const http = yield* HttpClient.HttpClient
    const execute = yield* makeExecutor<ExecutorTags>({
      settings: pooled,
      http,
      pool,
      structuredFallback: () => Effect.void
    })
    const modelName = settings.model !== undefined
      ? Effect.succeed(settings.model)
      : pool.defaultModel.pipe(
        Effect.mapError((e) =>
          new EmbeddingError({
            message: `no embeddings model: set DEEPNOTE_EMBEDDINGS_MODEL (${e.message})`
          })
        )
      )

    /** One request (its retries beneath it, as `LlmClient.attempt` spans). */
    const call = Effect.fn("HttpEmbedder.call", { captureStackTrace: false })(function*(texts: ReadonlyArray<string>) {
      const model = yield* modelName
      const policy = resolvePolicy(pooled, yield* FiberRef.get(currentLlmCallPolicy))
      const done = yield* execute({
        tags,
        operation: "embeddings",
        model,
        policy,
        build: embeddingsRequest({ texts, model, dimensions: settings.dimensions }, policy)
      }).pipe(Effect.mapError((e) => new EmbeddingError({ message: e.message, cause: e })))
      yield* Effect.annotateCurrentSpan({
        "gen_ai.operation.name": "embeddings",
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": done.reply.usage?.prompt_tokens ?? 0,
        "server.address": done.endpoint.url,
        "deepnote.llm.attempts": done.attempts
      })
      return yield* toVectors(done.reply.embeddings ?? [], texts.length, settings.dimensions, done.endpoint.url)
    })

    const embed = Effect.fnUntraced(function*(texts: ReadonlyArray<string>, purpose: EmbedPurpose) {
      if (texts.length === 0) return []
      const prefix = purpose === "query" ? settings.queryPrefix : settings.passagePrefix
      const batches = Chunk.toArray(
        Chunk.chunksOf(Chunk.fromIterable(texts.map((t) => prefix + t)), settings.batchSize)
      )
      const vectors = yield* Effect.forEach(batches, (batch) => call(Chunk.toReadonlyArray(batch)), {
        concurrency: settings.concurrency * settings.endpoints.length
      })
      return vectors.flat()
    })

    // the model's vector length is learned once (the settings', else one short text's); a failure is not remembered
    let known: EmbeddingModel | undefined
    const model = Effect.suspend(() =>
      known !== undefined
        ? Effect.succeed(known)
        : Effect.gen(function*() {
          const name = yield* modelName
          const dimensions = settings.dimensions ?? (yield* call(["dimensions"]))[0]!.length
          known = { model: name, dimensions }
          return known
        })
    )
    return Embedder.make({ batchSize: settings.batchSize, model, embed })
  })

/** An HTTP client for the embeddings servers alone: one undici pool sized for their concurrency. */
const httpFor = (settings: EmbeddingsSettingsData) =>
  httpClientLayer({
    connections: Math.max(settings.concurrency, ...settings.endpoints.map((e) => e.maxNumSeqs ?? 0)) + 4
  })

/** The embedder from settings values (tests, programs); invalid input is a defect naming the field. */
export const layer = (input: EmbeddingsSettingsInput): Layer.Layer<Embedder> =>
  Layer.unwrapEffect(
    Effect.map(
      Schema.decodeUnknown(EmbeddingsSettingsSchema)(input, { errors: "all" }).pipe(Effect.orDie),
      (settings) => Layer.scoped(Embedder, make(settings)).pipe(Layer.provide(httpFor(settings)))
    )
  )

/**
 * The embedder from `DEEPNOTE_EMBEDDINGS_*` (`DEEPNOTE_EMBEDDINGS_URL` comma-separated, `url#N` pinning one endpoint's
 * concurrency; `_MODEL`, `_API_KEY`, `_DIMENSIONS`, `_BATCH_SIZE` (64), `_CONCURRENCY` (4), `_ATTEMPT_TIMEOUT`
 * (60 s), `_MAX_ATTEMPTS` (5), `_OUTAGE_TOLERANCE` (10 minutes), `_QUERY_PREFIX`, `_PASSAGE_PREFIX`).
 */
export const layerConfig: Layer.Layer<Embedder, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.flatMap(
    embeddingsSettingsFromConfig,
    Option.match({
      onNone: () =>
        Effect.fail(
          ConfigError.MissingData(["DEEPNOTE_EMBEDDINGS_URL"], "no embeddings endpoint: set DEEPNOTE_EMBEDDINGS_URL")
        ),
      onSome: (settings) =>
        Effect.succeed(Layer.scoped(Embedder, make(settings)).pipe(Layer.provide(httpFor(settings))))
    })
  )
)
