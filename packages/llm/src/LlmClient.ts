import { withHotSpan } from "@deepnote-rag/core"
import { HttpClient } from "@effect/platform"
import { Clock, Context, Effect, FiberRef, Layer, Option, type Scope, type Stream } from "effect"
import { cacheKey } from "./CacheKey.js"
import type { Executed } from "./Client/Call.js"
import { observeCall } from "./Client/CallTelemetry.js"
import { streamOf } from "./Client/ChatStream.js"
import type { EndpointStatus } from "./Client/Endpoint.js"
import { EndpointPool } from "./Client/EndpointPool.js"
import { makeExecutor } from "./Client/Executor.js"
import { checkModels, type ModelPlacement } from "./Client/ModelCheck.js"
import type { LlmHealth } from "./Client/PoolHealth.js"
import { chatRequest, completionRequest } from "./Client/Requests.js"
import { cacheEntry, chatFromCache, chatResult, completionFromCache, completionResult } from "./Client/Results.js"
import type { StreamDelta } from "./Client/Sse.js"
import type {
  CallTags,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  CompletionRequest,
  CompletionResult
} from "./Domain/Chat.js"
import { LlmCallError } from "./Domain/LlmError.js"
import { type CachedReply, LlmCache } from "./LlmCache.js"
import { currentLlmCallPolicy, resolve as resolvePolicy } from "./LlmCallPolicy.js"
import { LlmSettings } from "./LlmSettings.js"
import { UsageLedger } from "./UsageLedger.js"

export interface LlmClientService {
  /** `/v1/chat/completions`, plain or SSE (`request.stream`), cached, retried, routed. */
  readonly chat: (request: ChatRequest) => Effect.Effect<ChatResult, LlmCallError>
  /**
   * `/v1/chat/completions` as a stream of deltas (vLLM's SSE: `content` and `reasoning_content`), then `Done` with the
   * whole result and its usage (`stream_options.include_usage`). Retried like `chat` until the first delta; a failure
   * after it ends the stream with `LlmCallError { reason: "stream-interrupted" }`. Interrupting the stream closes the
   * HTTP connection.
   */
  readonly chatStream: (request: ChatRequest) => Stream.Stream<ChatStreamEvent, LlmCallError>
  /** `/v1/completions` with a list of prompts in one request; texts come back in prompt order. */
  readonly complete: (request: CompletionRequest) => Effect.Effect<CompletionResult, LlmCallError>
  /** The model a call uses: the configured one, else the settings', else the first endpoint's first model. */
  readonly resolveModel: (configured: string | undefined) => Effect.Effect<string, LlmCallError>
  readonly endpoints: Effect.Effect<ReadonlyArray<EndpointStatus>>
  /**
   * The startup check callers run before any question: every requested model (undefined: the default one) must be
   * served by some endpoint; returns where each is served, with `max_model_len` (for the run manifest).
   */
  readonly checkModels: (
    models: ReadonlyArray<string | undefined>
  ) => Effect.Effect<ReadonlyArray<ModelPlacement>, LlmCallError>
  /** The pool's health: `ok`, `degraded` (some endpoints down or overloaded) or `outage` (none up), per endpoint. */
  readonly health: Effect.Effect<LlmHealth>
  /** The health at each change of state, starting with the current one. */
  readonly healthChanges: Stream.Stream<LlmHealth>
}

const make = Effect.gen(function*() {
  const settings = yield* LlmSettings
  const pool = yield* EndpointPool
  const cache = yield* LlmCache
  const ledger = yield* UsageLedger
  // The attempt span (kind "client") is the HTTP span (`Client/Transport.ts`), with `traceparent` set from it.
  const http = yield* HttpClient.HttpClient
  const execute = yield* makeExecutor<CallTags>({
    settings,
    http,
    pool,
    structuredFallback: ledger.structuredFallback
  })

  const resolveModel = (configured: string | undefined) =>
    configured !== undefined ?
      Effect.succeed(configured) :
      settings.model !== undefined ?
      Effect.succeed(settings.model) :
      pool.defaultModel.pipe(
        Effect.mapError((last) => new LlmCallError({ message: last.message, attempts: 0, reason: "outage", last }))
      )

  const policyNow = Effect.map(FiberRef.get(currentLlmCallPolicy), (p) => resolvePolicy(settings, p))

  /**
   * A hit answers from the response cache; a miss runs `call`, times it into a result and stores what the cache keeps.
   * With the cache off, only the timing: no cache look-up or store steps on the hot path.
   */
  const throughCache = <A extends Parameters<typeof cacheEntry>[1], E, R>(options: {
    readonly key: string
    readonly fromCache: (entry: CachedReply) => A
    readonly call: Effect.Effect<Executed, E, R>
    readonly toResult: (done: Executed, latencyMs: number) => A
    readonly texts: (result: A) => Array<string>
  }): Effect.Effect<A, E, R> =>
    cache.enabled ?
      Effect.gen(function*() {
        const hit = yield* cache.get(options.key)
        if (Option.isSome(hit)) return options.fromCache(hit.value)
        const start = yield* Clock.currentTimeMillis
        const done = yield* options.call
        const result = options.toResult(done, (yield* Clock.currentTimeMillis) - start)
        yield* cache.put(options.key, cacheEntry(options.texts(result), result))
        return result
      }) :
      Effect.clockWith((clock) => {
        const start = clock.unsafeCurrentTimeMillis()
        return Effect.map(options.call, (done) => options.toResult(done, clock.unsafeCurrentTimeMillis() - start))
      })

  /** A chat call; with `onDelta`, streamed (SSE) with each delta handed over as it arrives. */
  const chatCall = (request: ChatRequest, onDelta?: (delta: StreamDelta) => void) =>
    Effect.flatMap(
      resolveModel(request.sampling.model),
      (model) =>
        Effect.withFiberRuntime<ChatResult, LlmCallError>((fiber) => {
          const policy = resolvePolicy(settings, fiber.getFiberRef(currentLlmCallPolicy))
          const s = request.sampling
          const span = fiber.currentSpan
          if (span?._tag === "Span") {
            span.attribute("deepnote.role", request.role)
            span.attribute("deepnote.item.id", request.questionId ?? "")
            span.attribute("gen_ai.operation.name", "chat")
            span.attribute("gen_ai.request.model", model)
            span.attribute("gen_ai.request.temperature", s.temperature)
            span.attribute("gen_ai.request.top_p", s.topP)
            span.attribute("gen_ai.request.max_tokens", s.maxTokens)
            span.attribute("gen_ai.request.seed", s.seed)
          }
          const key = cache.enabled
            ? cacheKey({
              kind: "chat",
              model,
              messages: request.messages,
              sampling: s,
              structured: request.structured,
              sampleIndex: request.sampleIndex
            })
            : ""
          return throughCache({
            key,
            fromCache: chatFromCache,
            call: execute({
              tags: request,
              operation: "chat",
              model,
              policy,
              onDelta,
              build: chatRequest(request, model, policy)
            }),
            toResult: (done, latencyMs) => chatResult(request, model, done, latencyMs),
            texts: (result) => [result.content]
          }).pipe(
            observeCall(
              ledger,
              { tags: request, model, input: request.messages },
              (r) => [{ role: "assistant", content: r.content }]
            )
          )
        })
    )

  const chatSpan = withHotSpan("LlmClient.chat")
  const chat = (request: ChatRequest) => chatSpan(chatCall(request))

  const chatStream = streamOf(chatCall)

  const complete = Effect.fn("LlmClient.complete", { captureStackTrace: false })(function*(request: CompletionRequest) {
    const model = yield* resolveModel(request.sampling.model)
    const policy = yield* policyNow
    const s = request.sampling
    yield* Effect.annotateCurrentSpan({
      "deepnote.role": request.role,
      "gen_ai.operation.name": "text_completion",
      "gen_ai.request.model": model,
      "deepnote.llm.prompts": request.prompts.length
    })
    const key = cache.enabled
      ? cacheKey({
        kind: "completions",
        model,
        prompts: request.prompts,
        sampling: s,
        sampleIndex: request.sampleIndex
      })
      : ""
    return yield* throughCache({
      key,
      fromCache: completionFromCache,
      call: execute({
        tags: request,
        operation: "text_completion",
        model,
        policy,
        build: completionRequest(request, model, policy)
      }),
      toResult: (done, latencyMs) => completionResult(request, model, done, latencyMs),
      texts: (result) => [...result.texts]
    }).pipe(observeCall(ledger, { tags: request, model, input: request.prompts }, (r) => r.texts))
  })

  return LlmClient.of({
    chat,
    chatStream,
    complete,
    resolveModel,
    endpoints: pool.status,
    checkModels: Effect.fn("LlmClient.checkModels")((models: ReadonlyArray<string | undefined>) =>
      checkModels(pool, settings, pool.defaultModel, models)
    ),
    health: pool.health,
    healthChanges: pool.healthChanges
  })
})

/** The client for OpenAI-compatible LLM servers (vLLM first). */
export class LlmClient extends Context.Tag("@deepnote-rag/llm/LlmClient")<LlmClient, LlmClientService>() {
  /** Needs the settings, an endpoint pool, an HttpClient (see `LlmHttp`), the cache and the ledger. */
  static readonly make: Effect.Effect<
    LlmClientService,
    never,
    LlmSettings | EndpointPool | LlmCache | UsageLedger | HttpClient.HttpClient | Scope.Scope
  > = make

  /** Needs the settings, an HttpClient (see `LlmHttp`), the cache and the ledger; builds its own endpoint pool. */
  static readonly layer = Layer.scoped(LlmClient, LlmClient.make).pipe(Layer.provide(EndpointPool.layer))
}
