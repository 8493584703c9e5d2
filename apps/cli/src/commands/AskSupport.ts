import {
  answerQuestion,
  AnswerRecord,
  type AnswerTokens,
  type EventSink,
  Home,
  profiles,
  QuestionText,
  type RunConfig
} from "@deepnote-rag/core"
import { adHocQuestion, embeddingFacts, Engine } from "@deepnote-rag/engine"
import { embeddingsSettingsFromConfig, LlmCallPolicy } from "@deepnote-rag/llm"
import { Collections, DenseRetriever, type MeiliOptions } from "@deepnote-rag/retrieval"
import { Config, Effect, Layer, Option, Schema } from "effect"
import { type KnobInput, resolveRunConfig } from "../config/ResolveConfig.js"
import { type LlmOptionValues, llmSettingsLayer } from "../engine/LlmOptions.js"
import { CommandFailed, UsageError } from "../Errors.js"

export interface AskInput {
  readonly text: string
  readonly config: RunConfig
  readonly collection: string
  readonly llm: LlmOptionValues
  readonly llmFromFile: unknown
  /** The Meilisearch index of `retriever: meilisearch` (see `meiliForConfig`). */
  readonly meili?: MeiliOptions | undefined
  /** Where the steps and the answer's tokens go as they happen (`deepnote ask` without `--json`). */
  readonly live?: Layer.Layer<EventSink | AnswerTokens> | undefined
}

/**
 * Fails with a clear message when the collection does not exist (instead of retrieving nothing). A precondition, not
 * part of the question: it makes no span (a trace per question, and no stray one-span traces).
 */
export const requireCollection = (name: string) =>
  Effect.gen(function*() {
    const collections = yield* Collections
    const known = yield* Effect.withTracerEnabled(collections.list, false)
    if (!known.includes(name)) {
      const home = yield* Home
      return yield* new CommandFailed({
        message: `unknown collection "${name}" in ${home.root}${
          known.length > 0
            ? ` (known: ${known.join(", ")})`
            : " (none yet: build one with `deepnote index FILE… --collection NAME`)"
        }`
      })
    }
  })

/**
 * Dense and hybrid retrieval need an embeddings server and a collection with vectors: checked before any question,
 * each a one-line failure. Returns the collection's embeddings model and dimensions (undefined for BM25).
 */
export const requireDense = (config: RunConfig, collection: string) =>
  Effect.gen(function*() {
    const facts = yield* embeddingFacts(config, collection).pipe(
      Effect.mapError((e) => new CommandFailed({ message: e.message }))
    )
    if (facts === undefined) return undefined
    const settings = yield* embeddingsSettingsFromConfig.pipe(
      Effect.mapError((e) => new UsageError({ message: e.message }))
    )
    if (Option.isNone(settings)) return yield* new CommandFailed({ message: DenseRetriever.noEmbedder })
    return facts
  })

/** Answers one question end to end and returns the record `--json` prints and `inspect` reads. */
export const askOnce = (input: AskInput) =>
  Effect.gen(function*() {
    const text = yield* Schema.decodeUnknown(QuestionText)(input.text).pipe(
      Effect.mapError(() => new UsageError({ message: "the question is empty" }))
    )
    const needsRetrieval = profiles[input.config.profile].retrieves
    const meili = input.config.retriever === "meilisearch" ? input.meili : undefined
    if (needsRetrieval && meili === undefined) {
      yield* requireCollection(input.collection)
      yield* Effect.withTracerEnabled(requireDense(input.config, input.collection), false)
    }
    const question = adHocQuestion(text)
    const engine = Engine.layer({
      config: input.config,
      collection: input.collection,
      meili,
      // someone is waiting for this answer: the interactive outage tolerance and priority
      llm: llmSettingsLayer(input.llm, input.llmFromFile, "interactive")
    })
    const result = yield* answerQuestion(question, input.config).pipe(
      // the embeddings client reads the work class from the call policy (the LLM client's settings already say it)
      LlmCallPolicy.interactive,
      Effect.provide(input.live === undefined ? engine : Layer.merge(engine, input.live)),
      Effect.catchTags({
        RetrievalError: (e) => new CommandFailed({ message: `retrieval failed: ${e.message}` }),
        RoleError: (e) => new CommandFailed({ message: `${e.role} failed: ${e.message}` })
      })
    )
    return new AnswerRecord({
      engine: input.config.engine,
      ...(needsRetrieval ? { collection: meili === undefined ? input.collection : `meilisearch:${meili.index}` } : {}),
      config: input.config,
      result
    })
  })

export const collectionName = (
  flag: Option.Option<string>,
  fromFile: string | undefined,
  fromEnv: Option.Option<string>
) =>
  Option.getOrElse(
    Option.orElse(flag, () => Option.orElse(Option.fromNullable(fromFile), () => fromEnv)),
    () => "default"
  )

/**
 * The effective configuration and collection of a command with knob flags, `--config` and `--collection`: flags >
 * config file > environment (`DEEPNOTE_COLLECTION`) > defaults.
 */
export const resolveConfigAndCollection = (input: {
  readonly knobs: Omit<KnobInput, "configFile">
  readonly configFile: Option.Option<string>
  readonly collection: Option.Option<string>
}) =>
  Effect.gen(function*() {
    const { config, file } = yield* resolveRunConfig({ ...input.knobs, configFile: input.configFile })
    const envCollection = yield* Config.option(Config.string("DEEPNOTE_COLLECTION")).pipe(Effect.orDie)
    return { config, file, collection: collectionName(input.collection, file?.collection, envCollection) }
  })
