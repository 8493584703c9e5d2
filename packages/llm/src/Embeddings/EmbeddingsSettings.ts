import { decodeIssues, Millis, PositiveInt } from "@deepnote-rag/core"
import { Config, ConfigError, Duration, Effect, Option, Redacted, Schema } from "effect"
import { EndpointSpec, LlmSettingsSchema, parseEndpoint } from "../LlmSettingsSchema.js"

/** The embeddings servers (OpenAI-compatible `/v1/embeddings`: vLLM, TEI's OpenAI route) and how to call them. */
export const EmbeddingsSettingsSchema = Schema.Struct({
  endpoints: Schema.NonEmptyArray(EndpointSpec),
  apiKey: Schema.optional(Schema.Redacted(Schema.String)),
  /** The model asked for; absent: the first endpoint's first `/v1/models` id. */
  model: Schema.optional(Schema.String),
  /** Sent as `dimensions` (a Matryoshka model's shorter vectors); replies of another length are refused. */
  dimensions: Schema.optional(PositiveInt("dimensions")),
  /** Texts per request, and per committed batch when a collection is embedded. */
  batchSize: Schema.optionalWith(PositiveInt("batchSize"), { default: () => 64 }),
  /** Requests in flight per endpoint (`url#N` pins one endpoint's). */
  concurrency: Schema.optionalWith(PositiveInt("concurrency"), { default: () => 4 }),
  attemptTimeoutMs: Schema.optionalWith(Millis("attemptTimeoutMs"), { default: () => 60_000 }),
  maxAttempts: Schema.optionalWith(PositiveInt("maxAttempts"), { default: () => 5 }),
  /** How long a batch (index-time) call waits while every endpoint is down. */
  outageToleranceMs: Schema.optionalWith(Millis("outageToleranceMs"), { default: () => 600_000 }),
  backoffBaseMs: Schema.optionalWith(Millis("backoffBaseMs"), { default: () => 250 }),
  /** Put before each query / passage (e5: `query: ` and `passage: `; bge-m3 and most others: nothing). */
  queryPrefix: Schema.optionalWith(Schema.String, { default: () => "" }),
  passagePrefix: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type EmbeddingsSettingsData = typeof EmbeddingsSettingsSchema.Type
export type EmbeddingsSettingsInput = typeof EmbeddingsSettingsSchema.Encoded

/** The endpoint pool's settings for embeddings: static limits (no vLLM load metrics steer pooling), no cache. */
export const poolSettings = (s: EmbeddingsSettingsData) =>
  Schema.decodeUnknownSync(LlmSettingsSchema)({
    endpoints: s.endpoints,
    ...(s.apiKey === undefined ? {} : { apiKey: Redacted.value(s.apiKey) }),
    ...(s.model === undefined ? {} : { model: s.model }),
    perEndpointConcurrency: s.concurrency,
    adaptiveConcurrency: false,
    attemptTimeoutMs: s.attemptTimeoutMs,
    maxAttempts: s.maxAttempts,
    outageToleranceMs: s.outageToleranceMs,
    backoffBaseMs: s.backoffBaseMs,
    cache: false,
    structuredOutputs: "off"
  })

/** Every setting's `Config` key (`DEEPNOTE_EMBEDDINGS_*`); durations read as "60 seconds". */
export const embeddingsKeys = {
  endpoints: "DEEPNOTE_EMBEDDINGS_URL",
  apiKey: "DEEPNOTE_EMBEDDINGS_API_KEY",
  model: "DEEPNOTE_EMBEDDINGS_MODEL",
  dimensions: "DEEPNOTE_EMBEDDINGS_DIMENSIONS",
  batchSize: "DEEPNOTE_EMBEDDINGS_BATCH_SIZE",
  concurrency: "DEEPNOTE_EMBEDDINGS_CONCURRENCY",
  attemptTimeoutMs: "DEEPNOTE_EMBEDDINGS_ATTEMPT_TIMEOUT",
  maxAttempts: "DEEPNOTE_EMBEDDINGS_MAX_ATTEMPTS",
  outageToleranceMs: "DEEPNOTE_EMBEDDINGS_OUTAGE_TOLERANCE",
  queryPrefix: "DEEPNOTE_EMBEDDINGS_QUERY_PREFIX",
  passagePrefix: "DEEPNOTE_EMBEDDINGS_PASSAGE_PREFIX"
} as const

const optional = <A>(config: Config.Config<A>) => Effect.map(Config.option(config), Option.getOrUndefined)
const millis = (key: string) =>
  Effect.map(optional(Config.duration(key)), (d) => (d === undefined ? undefined : Duration.toMillis(d)))

/**
 * The settings from `Config` (`DEEPNOTE_EMBEDDINGS_*`); none when `DEEPNOTE_EMBEDDINGS_URL` is unset (no dense
 * retrieval). A value that does not decode fails naming its key.
 */
export const embeddingsSettingsFromConfig: Effect.Effect<
  Option.Option<EmbeddingsSettingsData>,
  ConfigError.ConfigError
> = Effect.gen(function*() {
  const k = embeddingsKeys
  const urls = yield* optional(Config.array(Config.string(), k.endpoints))
  const endpoints = (urls ?? []).filter((u) => u.trim().length > 0).map(parseEndpoint)
  if (endpoints.length === 0) return Option.none()
  const values = {
    endpoints,
    apiKey: Option.getOrUndefined(Option.map(yield* Config.option(Config.redacted(k.apiKey)), Redacted.value)),
    model: yield* optional(Config.string(k.model)),
    dimensions: yield* optional(Config.integer(k.dimensions)),
    batchSize: yield* optional(Config.integer(k.batchSize)),
    concurrency: yield* optional(Config.integer(k.concurrency)),
    attemptTimeoutMs: yield* millis(k.attemptTimeoutMs),
    maxAttempts: yield* optional(Config.integer(k.maxAttempts)),
    outageToleranceMs: yield* millis(k.outageToleranceMs),
    queryPrefix: yield* optional(Config.string(k.queryPrefix)),
    passagePrefix: yield* optional(Config.string(k.passagePrefix))
  }
  const defined = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined))
  return Option.some(
    yield* Schema.decodeUnknown(EmbeddingsSettingsSchema)(defined, { errors: "all" }).pipe(
      Effect.mapError((e) => {
        const issues = decodeIssues(e)
        const field = String(issues[0]?.path[0] ?? "endpoints")
        const key = new Map<string, string>(Object.entries(k)).get(field) ?? k.endpoints
        return ConfigError.InvalidData([key], issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "))
      })
    )
  )
})
