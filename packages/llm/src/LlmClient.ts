import { HttpClient } from "@effect/platform"
import { Clock, Context, Effect, FiberRef, Layer, Option, Queue, Redacted, type Scope, Stream, Take } from "effect"
import { cacheKey } from "./CacheKey.js"
import { observeCall } from "./Client/CallTelemetry.js"
import type { EndpointStatus } from "./Client/Endpoint.js"
import { EndpointPool } from "./Client/EndpointPool.js"
import { makeExecutor } from "./Client/Executor.js"
import { checkModels, type ModelPlacement } from "./Client/ModelCheck.js"
import type { LlmHealth } from "./Client/PoolHealth.js"
import { chatRequest, completionRequest } from "./Client/Requests.js"
import type { StreamDelta } from "./Client/Sse.js"
import type { ChatRequest, ChatResult, ChatStreamEvent, CompletionRequest, CompletionResult } from "./Domain/Chat.js"
import { LlmCallError } from "./Domain/LlmError.js"
import { usageFromWire } from "./Domain/Wire.js"
import { LlmCache } from "./LlmCache.js"
import { currentLlmCallPolicy, resolve as resolvePolicy } from "./LlmCallPolicy.js"
import { LlmSettings } from "./LlmSettings.js"
import { countChatTokens, countTokens } from "./Tokens.js"
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
  // The attempt span (kind "client") is the HTTP span: the platform's own per-request span is turned off (it would
  // duplicate it, costing CPU per call), and `traceparent` is set from the attempt span instead.
  const http = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerDisabledWhen(() => true))
  const headers: Record<string, string> = settings.apiKey === undefined
    ? {}
    : { authorization: `Bearer ${Redacted.value(settings.apiKey)}` }
  const execute = yield* makeExecutor({ settings, http, pool, ledger, headers })

  const resolveModel = (configured: string | undefined) =>
    configured !== undefined ?
      Effect.succeed(configured) :
      settings.model !== undefined ?
      Effect.succeed(settings.model) :
      pool.defaultModel.pipe(
        Effect.mapError((last) => new LlmCallError({ message: last.message, attempts: 0, reason: "outage", last }))
      )

  const policyNow = Effect.map(FiberRef.get(currentLlmCallPolicy), (p) => resolvePolicy(settings, p))

  /** A chat call; with `onDelta`, streamed (SSE) with each delta handed over as it arrives. */
  const chatCall = (request: ChatRequest, onDelta?: (delta: StreamDelta) => void) =>
    Effect.gen(function*() {
      const model = yield* resolveModel(request.sampling.model)
      const policy = yield* policyNow
      const s = request.sampling
      yield* Effect.annotateCurrentSpan({
        "deepnote.role": request.role,
        "deepnote.item.id": request.questionId ?? "",
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.request.temperature": s.temperature,
        "gen_ai.request.top_p": s.topP,
        "gen_ai.request.max_tokens": s.maxTokens,
        "gen_ai.request.seed": s.seed
      })
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
      return yield* Effect.gen(function*() {
        const hit = yield* cache.get(key)
        if (Option.isSome(hit)) {
          const c = hit.value
          return {
            content: c.texts[0] ?? "",
            finishReason: c.finishReason,
            model: c.model,
            endpoint: "cache",
            usage: { promptTokens: c.promptTokens, completionTokens: c.completionTokens },
            attempts: 0,
            latencyMs: 0,
            cached: true,
            structured: "none"
          } satisfies ChatResult
        }
        const start = yield* Clock.currentTimeMillis
        const done = yield* execute({
          tags: request,
          operation: "chat",
          model,
          policy,
          onDelta,
          build: chatRequest(request, model, policy)
        })
        const content = done.reply.texts[0] ?? ""
        const usage = done.reply.usage
          ? usageFromWire(done.reply.usage)
          : { promptTokens: countChatTokens(request.messages), completionTokens: countTokens(content) }
        const result: ChatResult = {
          content,
          finishReason: done.reply.finishReason,
          model: done.reply.model ?? model,
          endpoint: done.endpoint.url,
          usage,
          attempts: done.attempts,
          latencyMs: (yield* Clock.currentTimeMillis) - start,
          cached: false,
          structured: request.structured === undefined ? "none" : done.structuredSent ? "enforced" : "unsupported"
        }
        yield* cache.put(key, {
          texts: [content],
          ...(result.finishReason === undefined ? {} : { finishReason: result.finishReason }),
          model: result.model,
          promptTokens: usage.promptTokens,
          completionTokens: usage.completionTokens
        })
        return result
      }).pipe(
        observeCall(
          ledger,
          { tags: request, model, input: request.messages },
          (r) => [{ role: "assistant", content: r.content }]
        )
      )
    })

  const chat = Effect.fn("LlmClient.chat", { captureStackTrace: false })((request: ChatRequest) => chatCall(request))

  const chatStream = (request: ChatRequest): Stream.Stream<ChatStreamEvent, LlmCallError> =>
    Stream.unwrapScoped(Effect.gen(function*() {
      const queue = yield* Queue.unbounded<Take.Take<ChatStreamEvent, LlmCallError>>()
      const offer = (event: ChatStreamEvent) => Queue.unsafeOffer(queue, Take.of(event))
      // The call runs in a fiber of the stream's scope: interrupting the stream interrupts it, which aborts the HTTP
      // request (the connection is closed) and releases its slot.
      yield* chatCall({ ...request, stream: true }, (d) => offer({ _tag: "Delta", ...d })).pipe(
        Effect.withSpan("LlmClient.chatStream", { captureStackTrace: false }),
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.sync(() => {
            if (exit._tag === "Success") {
              // a cache hit streams its whole reply at once
              if (exit.value.cached) offer({ _tag: "Delta", content: exit.value.content, reasoning: "" })
              offer({ _tag: "Done", result: exit.value })
              Queue.unsafeOffer(queue, Take.end)
            } else Queue.unsafeOffer(queue, Take.failCause(exit.cause))
          })
        ),
        Effect.forkScoped
      )
      return Stream.flattenTake(Stream.fromQueue(queue))
    }))

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
    return yield* Effect.gen(function*() {
      const hit = yield* cache.get(key)
      if (Option.isSome(hit)) {
        const c = hit.value
        return {
          texts: c.texts,
          model: c.model,
          endpoint: "cache",
          usage: { promptTokens: c.promptTokens, completionTokens: c.completionTokens },
          attempts: 0,
          latencyMs: 0,
          cached: true
        } satisfies CompletionResult
      }
      const start = yield* Clock.currentTimeMillis
      const done = yield* execute({
        tags: request,
        operation: "text_completion",
        model,
        policy,
        build: completionRequest(request, model, policy)
      })
      const usage = done.reply.usage
        ? usageFromWire(done.reply.usage)
        : {
          promptTokens: request.prompts.reduce((n, p) => n + countTokens(p), 0),
          completionTokens: done.reply.texts.reduce((n, t) => n + countTokens(t), 0)
        }
      const result: CompletionResult = {
        texts: done.reply.texts,
        model: done.reply.model ?? model,
        endpoint: done.endpoint.url,
        usage,
        attempts: done.attempts,
        latencyMs: (yield* Clock.currentTimeMillis) - start,
        cached: false
      }
      yield* cache.put(key, {
        texts: [...result.texts],
        model: result.model,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens
      })
      return result
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
export class LlmClient extends Context.Tag("@deepnote/llm/LlmClient")<LlmClient, LlmClientService>() {
  /** Needs the settings, an endpoint pool, an HttpClient (see `LlmHttp`), the cache and the ledger. */
  static readonly make: Effect.Effect<
    LlmClientService,
    never,
    LlmSettings | EndpointPool | LlmCache | UsageLedger | HttpClient.HttpClient | Scope.Scope
  > = make

  /** Needs the settings, an HttpClient (see `LlmHttp`), the cache and the ledger; builds its own endpoint pool. */
  static readonly layer = Layer.scoped(LlmClient, LlmClient.make).pipe(Layer.provide(EndpointPool.layer))
}
