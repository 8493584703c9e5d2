import {
  type ApiError,
  type BadGateway,
  type ConfigPatch,
  InternalError,
  type NotFound,
  type Tenant,
  type Unavailable,
  type ValidationError
} from "@deepnote/api"
import { answerQuestion, AnswerRecord, EventSink, type PipelineEvent, Question, type RunConfig } from "@deepnote/core"
import { adHocQuestion, type EngineServices } from "@deepnote/engine"
import { LlmCallPolicy } from "@deepnote/llm"
import { Context, Effect, Exit, Layer, Queue, Scope, Stream } from "effect"
import { TenantCollections } from "../Collections/TenantCollections.js"
import { yieldingToIo } from "../Engine/EventLoopScheduler.js"
import { pipelineFailure } from "../Engine/LlmFailure.js"
import { resolveRequestConfig } from "../Engine/RequestConfig.js"
import { ServerEngine } from "../Engine/ServerEngine.js"
import { ServerSettings } from "../ServerSettings.js"
import { AskLimiter } from "./AskLimiter.js"

export interface AskInput {
  readonly question: string
  readonly collection?: string | undefined
  readonly config?: ConfigPatch | undefined
  /** Where the knobs came from in the request, for error fields (`config`, `deepnote.config`). */
  readonly configField: string
}

/** What a streamed answer emits: pipeline events, then the record or an error. */
export type AskStreamItem =
  | { readonly _tag: "Event"; readonly event: PipelineEvent }
  | { readonly _tag: "Result"; readonly record: AnswerRecord }
  | { readonly _tag: "Error"; readonly error: ApiError }

export type AskError = ValidationError | NotFound | BadGateway | Unavailable | InternalError

interface Prepared {
  readonly question: Question
  readonly config: RunConfig
  readonly collection: string | undefined
  readonly engine: Layer.Layer<EngineServices>
}

export interface AskService {
  readonly answer: (tenant: Tenant, input: AskInput) => Effect.Effect<AnswerRecord, AskError>
  /** Validates and takes an answer slot first (so those failures are plain HTTP errors), then streams. */
  readonly stream: (tenant: Tenant, input: AskInput) => Effect.Effect<Stream.Stream<AskStreamItem>, AskError>
}

/** One question end to end, for `/v1/ask` and chat completions: JSON, or a stream of pipeline events. */
export class Ask extends Context.Tag("@deepnote/server/Ask")<Ask, AskService>() {
  static readonly make: Effect.Effect<
    AskService,
    never,
    ServerSettings | ServerEngine | TenantCollections | AskLimiter
  > = Effect.gen(function*() {
    const settings = yield* ServerSettings
    const engine = yield* ServerEngine
    const collections = yield* TenantCollections
    const limiter = yield* AskLimiter

    const prepare = Effect.fn("Ask.prepare")(function*(tenant: Tenant, input: AskInput) {
      const config = yield* resolveRequestConfig(settings.defaults, input.config, input.configField)
      const name = input.collection ?? "default"
      const needsRetrieval = config.profile !== "no-retrieval"
      const stored = needsRetrieval ? yield* collections.require(tenant, name) : `${tenant.namespace}${name}`
      return {
        question: adHocQuestion(input.question),
        config,
        collection: needsRetrieval ? name : undefined,
        engine: engine.layerFor(config, stored)
      } satisfies Prepared
    })

    const run = (prepared: Prepared, publish?: (event: PipelineEvent) => Effect.Effect<void>) =>
      answerQuestion(prepared.question, prepared.config).pipe(
        // a person waits for the answer: the short outage tolerance (then 503), the interactive priority
        LlmCallPolicy.interactive,
        yieldingToIo,
        Effect.provide(
          publish === undefined ? prepared.engine : Layer.merge(prepared.engine, EventSink.layer(publish))
        ),
        Effect.mapError(pipelineFailure),
        Effect.map((result) =>
          new AnswerRecord({
            engine: prepared.config.engine,
            ...(prepared.collection === undefined ? {} : { collection: prepared.collection }),
            config: prepared.config,
            result
          })
        )
      )

    const answer = Effect.fn("Ask.answer")(function*(tenant: Tenant, input: AskInput) {
      const prepared = yield* prepare(tenant, input)
      return yield* Effect.scoped(Effect.zipRight(limiter.acquire, run(prepared)))
    })

    const stream = Effect.fn("Ask.stream")(function*(tenant: Tenant, input: AskInput) {
      const prepared = yield* prepare(tenant, input)
      const slot = yield* Scope.make()
      yield* limiter.acquire.pipe(Scope.extend(slot), Effect.onError(() => Scope.close(slot, Exit.void)))
      return Stream.unwrapScoped(Effect.gen(function*() {
        const queue = yield* Queue.unbounded<AskStreamItem>()
        yield* run(prepared, (event) => Queue.offer(queue, { _tag: "Event", event })).pipe(
          Effect.timeoutFail({
            duration: settings.limits.requestTimeout,
            onTimeout: () => InternalError.of("the answer took longer than the server's limit", "timeout")
          }),
          Effect.matchEffect({
            onSuccess: (record) => Queue.offer(queue, { _tag: "Result", record }),
            onFailure: (error) => Queue.offer(queue, { _tag: "Error", error })
          }),
          Effect.forkScoped
        )
        return Stream.fromQueue(queue).pipe(Stream.takeUntil((item) => item._tag !== "Event"))
      })).pipe(Stream.ensuring(Scope.close(slot, Exit.void)))
    })

    return Ask.of({ answer, stream })
  })

  static readonly layer = Layer.effect(Ask, Ask.make)
}
