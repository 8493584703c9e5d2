import {
  type ApiError,
  type BadGateway,
  type ConfigPatch,
  InternalError,
  type NotFound,
  type Tenant,
  type Unavailable,
  ValidationError
} from "@deepnote-rag/api"
import {
  answerQuestion,
  AnswerRecord,
  AnswerTokens,
  EventSink,
  type PipelineEvent,
  profiles,
  Question,
  type RunConfig
} from "@deepnote-rag/core"
import { adHocQuestion, type EngineServices } from "@deepnote-rag/engine"
import { type CallUsage, collectCallUsage, LlmCallPolicy } from "@deepnote-rag/llm"
import { Context, Effect, Exit, Layer, Queue, Scope, Stream } from "effect"
import { TenantCollections } from "../Collections/TenantCollections.js"
import { yieldingToIo } from "../Engine/EventLoopScheduler.js"
import { pipelineFailure } from "../Engine/LlmFailure.js"
import { requireEmbeddings, resolveRequestConfig } from "../Engine/RequestConfig.js"
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

/** An answered question with the usage of every LLM call it made (none with the extractive engine). */
export interface AskAnswer {
  readonly record: AnswerRecord
  readonly usage: ReadonlyArray<CallUsage>
}

/** What a streamed answer emits: pipeline events and the answer's text as it is written, then the result or an error. */
export type AskStreamItem =
  | { readonly _tag: "Event"; readonly event: PipelineEvent }
  | { readonly _tag: "Token"; readonly text: string }
  | ({ readonly _tag: "Result" } & AskAnswer)
  | { readonly _tag: "Error"; readonly error: ApiError }

/** An answer written at once, in word-sized pieces (each with the whitespace before it). */
const wordChunks = (text: string): ReadonlyArray<string> => text.match(/\s*\S+/gu) ?? []

export type AskError = ValidationError | NotFound | BadGateway | Unavailable | InternalError

interface Prepared {
  readonly question: Question
  readonly config: RunConfig
  readonly collection: string | undefined
  readonly engine: Layer.Layer<EngineServices>
  /** The LLM calls' policy: someone is waiting (interactive), and tenants share the servers fairly. */
  readonly policy: LlmCallPolicy.LlmCallPolicy
}

export interface AskService {
  readonly answer: (tenant: Tenant, input: AskInput) => Effect.Effect<AskAnswer, AskError>
  /** Validates and takes an answer slot first (so those failures are plain HTTP errors), then streams. */
  readonly stream: (tenant: Tenant, input: AskInput) => Effect.Effect<Stream.Stream<AskStreamItem>, AskError>
}

/** One question end to end, for `/v1/ask` and chat completions: JSON, or a stream of pipeline events. */
export class Ask extends Context.Tag("@deepnote-rag/server/Ask")<Ask, AskService>() {
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
      const config = yield* resolveRequestConfig(
        settings.defaults,
        input.config,
        input.configField,
        settings.meili !== undefined
      )
      const name = input.collection ?? "default"
      const needsRetrieval = profiles[config.profile].retrieves
      const meili = config.retriever === "meilisearch" ? settings.meili : undefined
      if (meili !== undefined && input.collection !== undefined) {
        return yield* ValidationError.of(
          "collection: retriever meilisearch searches the server's Meilisearch index, not a collection",
          "collection"
        )
      }
      const stored = needsRetrieval && meili === undefined
        ? yield* collections.require(tenant, name)
        : `${tenant.namespace}${name}`
      // dense and hybrid need an embeddings server and the collection's vectors: a 400 now, not a failed question
      if (needsRetrieval && meili === undefined) {
        yield* requireEmbeddings(engine.dense, config, input.configField)
        yield* collections.embeddings(config, name, stored)
      }
      return {
        question: adHocQuestion(input.question),
        config,
        collection: !needsRetrieval ? undefined : meili === undefined ? name : `meilisearch:${meili.index}`,
        engine: engine.layerFor(config, stored),
        policy: { workClass: "interactive", fairnessKey: tenant.id }
      } satisfies Prepared
    })

    /** One question; with `publish`, its events and the answer's text go to it as they happen. */
    const run = (prepared: Prepared, publish?: (item: AskStreamItem) => Effect.Effect<void>) =>
      collectCallUsage(answerQuestion(prepared.question, prepared.config)).pipe(
        LlmCallPolicy.locally(prepared.policy),
        yieldingToIo,
        (answering) =>
          publish === undefined ? answering : answering.pipe(
            // plain services, not layers merged per request (a parallel build that an interrupted request could leave
            // suspended)
            Effect.provideService(EventSink, EventSink.of({ publish: (event) => publish({ _tag: "Event", event }) })),
            Effect.provideService(
              AnswerTokens,
              AnswerTokens.of({ publish: (text) => publish({ _tag: "Token", text }) })
            )
          ),
        Effect.provide(prepared.engine),
        Effect.mapError(pipelineFailure),
        Effect.map(([result, usage]): AskAnswer => ({
          record: new AnswerRecord({
            engine: prepared.config.engine,
            ...(prepared.collection === undefined ? {} : { collection: prepared.collection }),
            config: prepared.config,
            result
          }),
          usage
        }))
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
        let streamed = false
        const publish = (item: AskStreamItem) => {
          if (item._tag === "Token") streamed = true
          return Queue.offer(queue, item)
        }
        yield* run(prepared, publish).pipe(
          Effect.timeoutFail({
            duration: settings.limits.requestTimeout,
            onTimeout: () => InternalError.of("the answer took longer than the server's limit", "timeout")
          }),
          Effect.matchEffect({
            // an answer the engine wrote at once (extractive) streams word by word
            onSuccess: (answer) =>
              Queue.offerAll(queue, [
                ...(streamed ? [] : wordChunks(answer.record.result.answer.text).map((text) => ({
                  _tag: "Token" as const,
                  text
                }))),
                { _tag: "Result", ...answer }
              ]),
            onFailure: (error) => Queue.offer(queue, { _tag: "Error", error })
          }),
          Effect.forkScoped
        )
        return Stream.fromQueue(queue).pipe(Stream.takeUntil((item) => item._tag === "Result" || item._tag === "Error"))
      })).pipe(Stream.ensuring(Scope.close(slot, Exit.void)))
    })

    return Ask.of({ answer, stream })
  })

  static readonly layer = Layer.effect(Ask, Ask.make)
}
