import { Config, ConfigError, Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"

const PositiveInt = (field: string) =>
  Schema.Int.pipe(Schema.positive({ message: () => `${field} must be a positive integer` }))

const Millis = (field: string) =>
  Schema.Number.pipe(Schema.nonNegative({ message: () => `${field} must be ≥ 0 (milliseconds)` }))

const PositiveNumber = (field: string) => Schema.Number.pipe(Schema.positive({ message: () => `${field} must be > 0` }))

const NonNegative = (field: string) => Schema.Number.pipe(Schema.nonNegative({ message: () => `${field} must be ≥ 0` }))

/** Interactive work (someone waits for the answer) or batch work (runs, sweeps, workers). */
export const WorkClass = Schema.Literal("interactive", "batch")
export type WorkClass = typeof WorkClass.Type

/** One server (or data-parallel rank). `maxNumSeqs` caps the calls in flight to it. */
export const EndpointSpec = Schema.Struct({
  url: Schema.String.pipe(
    Schema.pattern(/^https?:\/\/[^\s]+$/, { message: () => "endpoint url must be http(s)://host[:port][/v1]" })
  ),
  maxNumSeqs: Schema.optional(PositiveInt("maxNumSeqs"))
})
export type EndpointSpec = typeof EndpointSpec.Type

/** How structured outputs are requested: `auto` tries vLLM's `structured_outputs`, then legacy `guided_*`, then none. */
export const StructuredOutputsMode = Schema.Literal("auto", "structured_outputs", "response_format", "guided", "off")
export type StructuredOutputsMode = typeof StructuredOutputsMode.Type

/** Everything the LLM client needs to know about its servers and its limits. */
export const LlmSettingsSchema = Schema.Struct({
  endpoints: Schema.NonEmptyArray(EndpointSpec),
  apiKey: Schema.optional(Schema.Redacted(Schema.String)),
  /** Model for every role that RunConfig does not name one for; else the first endpoint's first `/v1/models` id. */
  model: Schema.optional(Schema.String),
  /** Calls in flight per endpoint when the URL does not say (`url#N`); else the server's own max_num_seqs if it reports it; else 64. */
  perEndpointConcurrency: Schema.optional(PositiveInt("perEndpointConcurrency")),
  globalInFlight: Schema.optionalWith(PositiveInt("globalInFlight"), { default: () => 512 }),
  /** Requests per second over all endpoints (token bucket); absent = unlimited. */
  rps: Schema.optional(Schema.Number.pipe(Schema.positive({ message: () => "rps must be > 0" }))),
  attemptTimeoutMs: Schema.optionalWith(Millis("attemptTimeoutMs"), { default: () => 120_000 }),
  /** Attempts per call that count: failures while some endpoint is up (overload answers and outages do not count). */
  maxAttempts: Schema.optionalWith(PositiveInt("maxAttempts"), { default: () => 5 }),
  /** How long a call of batch work (runs, sweeps, workers) waits while every endpoint is down or overloaded. */
  outageToleranceMs: Schema.optionalWith(Millis("outageToleranceMs"), { default: () => 600_000 }),
  /** The same for interactive work (ask, `/v1/ask`, the chat facade): someone is waiting for the answer. */
  interactiveOutageToleranceMs: Schema.optionalWith(Millis("interactiveOutageToleranceMs"), {
    default: () => 30_000
  }),
  /** What this client's calls are, unless a call says otherwise (`LlmCallPolicy`): picks tolerance and priority. */
  workClass: Schema.optionalWith(WorkClass, { default: () => "batch" as const }),
  /** vLLM's `priority` for interactive calls (lower is served sooner; honoured under `--scheduling-policy priority`). */
  interactivePriority: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /** vLLM's `priority` for batch calls: behind interactive work and behind other clients' default-priority (0) work. */
  batchPriority: Schema.optionalWith(Schema.Int, { default: () => 10 }),
  /** Retry throttling (a token bucket, as gRPC's): its size; a retry takes a token, and waits for one when empty. */
  retryTokens: Schema.optionalWith(PositiveNumber("retryTokens"), { default: () => 100 }),
  /** Tokens returned per successful call (0.5: retries may run at half the rate of successes before they wait). */
  retryTokensPerSuccess: Schema.optionalWith(NonNegative("retryTokensPerSuccess"), { default: () => 0.5 }),
  /** Tokens returned per second whatever happens, so retries never stop for good. */
  retryTokensPerSecond: Schema.optionalWith(PositiveNumber("retryTokensPerSecond"), { default: () => 10 }),
  backoffBaseMs: Schema.optionalWith(Millis("backoffBaseMs"), { default: () => 250 }),
  backoffMaxMs: Schema.optionalWith(Millis("backoffMaxMs"), { default: () => 20_000 }),
  /**
   * Consecutive failures (transport, timeout, 5xx other than 503/529) that eject an endpoint, and consecutive overload
   * answers (429/503/529) that mark it overloaded (paused, then one trial call at a time).
   */
  ejectAfter: Schema.optionalWith(PositiveInt("ejectAfter"), { default: () => 3 }),
  /** How long an ejected endpoint rests before a half-open `/health` probe; doubles per failed probe. */
  cooldownMs: Schema.optionalWith(Millis("cooldownMs"), { default: () => 2_000 }),
  /** The cap of that doubling, and of an overloaded endpoint's pause: an outage is noticed over within this. */
  cooldownMaxMs: Schema.optionalWith(Millis("cooldownMaxMs"), { default: () => 10_000 }),
  healthIntervalMs: Schema.optionalWith(Millis("healthIntervalMs"), { default: () => 5_000 }),
  cache: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Cache file; default `<home>/llm-cache.sqlite` (`LlmCache.fileIn`). */
  cacheFile: Schema.optional(Schema.String),
  structuredOutputs: Schema.optionalWith(StructuredOutputsMode, { default: () => "auto" as const })
})
export type LlmSettingsData = typeof LlmSettingsSchema.Type
export type LlmSettingsInput = typeof LlmSettingsSchema.Encoded

/** `http://h:8000/v1#32` → `{ url: "http://h:8000/v1", maxNumSeqs: 32 }`. */
export const parseEndpoint = (raw: string): { url: string; maxNumSeqs?: number } => {
  const [url, fragment] = raw.trim().split("#", 2) as [string, string | undefined]
  const n = fragment === undefined ? Number.NaN : Number(fragment)
  return Number.isInteger(n) && n > 0 ? { url, maxNumSeqs: n } : { url }
}

/** `http://h:8000/v1/` → `http://h:8000`: requests add `/v1/...` themselves. */
export const baseUrl = (url: string): string => url.replace(/\/+$/, "").replace(/\/v1$/, "")

const millis = (d: Duration.Duration | undefined) => d === undefined ? undefined : Duration.toMillis(d)

const fromConfig = Effect.gen(function*() {
  const urls = yield* Config.array(Config.string(), "DEEPNOTE_LLM_URL")
  const opt = <A>(c: Config.Config<A>) => Config.option(c).pipe(Effect.map(Option.getOrUndefined))
  const apiKey = yield* opt(Config.redacted("DEEPNOTE_LLM_API_KEY"))
  const timeout = yield* opt(Config.duration("DEEPNOTE_LLM_ATTEMPT_TIMEOUT"))
  const input: Record<string, unknown> = {
    endpoints: urls.filter((u) => u.trim().length > 0).map(parseEndpoint),
    ...(apiKey === undefined ? {} : { apiKey: Redacted.value(apiKey) }),
    model: yield* opt(Config.string("DEEPNOTE_LLM_MODEL")),
    perEndpointConcurrency: yield* opt(Config.integer("DEEPNOTE_LLM_CONCURRENCY")),
    globalInFlight: yield* opt(Config.integer("DEEPNOTE_LLM_GLOBAL_IN_FLIGHT")),
    rps: yield* opt(Config.number("DEEPNOTE_LLM_RPS")),
    attemptTimeoutMs: timeout === undefined ? undefined : Duration.toMillis(timeout),
    maxAttempts: yield* opt(Config.integer("DEEPNOTE_LLM_MAX_ATTEMPTS")),
    outageToleranceMs: millis(yield* opt(Config.duration("DEEPNOTE_LLM_OUTAGE_TOLERANCE"))),
    interactiveOutageToleranceMs: millis(yield* opt(Config.duration("DEEPNOTE_LLM_INTERACTIVE_OUTAGE_TOLERANCE"))),
    interactivePriority: yield* opt(Config.integer("DEEPNOTE_LLM_INTERACTIVE_PRIORITY")),
    batchPriority: yield* opt(Config.integer("DEEPNOTE_LLM_BATCH_PRIORITY")),
    retryTokens: yield* opt(Config.number("DEEPNOTE_LLM_RETRY_TOKENS")),
    retryTokensPerSuccess: yield* opt(Config.number("DEEPNOTE_LLM_RETRY_TOKENS_PER_SUCCESS")),
    retryTokensPerSecond: yield* opt(Config.number("DEEPNOTE_LLM_RETRY_TOKENS_PER_SECOND")),
    cache: yield* opt(Config.boolean("DEEPNOTE_LLM_CACHE")),
    cacheFile: yield* opt(Config.string("DEEPNOTE_LLM_CACHE_FILE")),
    structuredOutputs: yield* opt(Config.string("DEEPNOTE_LLM_STRUCTURED_OUTPUTS"))
  }
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
  return yield* Schema.decodeUnknown(LlmSettingsSchema)(defined, { errors: "all" }).pipe(
    Effect.mapError((e) => ConfigError.InvalidData(["DEEPNOTE_LLM"], `invalid LLM settings: ${e.message}`))
  )
})

/** The decoded LLM settings. */
export class LlmSettings extends Context.Tag("@deepnote/llm/LlmSettings")<LlmSettings, LlmSettingsData>() {
  /** From a plain object (CLI flags, config file, tests). Invalid input is a defect naming the field. */
  static readonly layer = (input: LlmSettingsInput) =>
    Layer.effect(LlmSettings, Schema.decodeUnknown(LlmSettingsSchema)(input, { errors: "all" }).pipe(Effect.orDie))

  /**
   * From `Config`: `DEEPNOTE_LLM_URL` (comma-separated; `url#N` sets that endpoint's concurrency), `DEEPNOTE_LLM_API_KEY`,
   * `DEEPNOTE_LLM_MODEL`, `DEEPNOTE_LLM_CONCURRENCY`, `DEEPNOTE_LLM_GLOBAL_IN_FLIGHT`, `DEEPNOTE_LLM_RPS`,
   * `DEEPNOTE_LLM_ATTEMPT_TIMEOUT` (e.g. "60 seconds"), `DEEPNOTE_LLM_MAX_ATTEMPTS`, `DEEPNOTE_LLM_RETRY_BUDGET`,
   * `DEEPNOTE_LLM_CACHE` (true/false), `DEEPNOTE_LLM_CACHE_FILE`, `DEEPNOTE_LLM_STRUCTURED_OUTPUTS`.
   */
  static readonly layerConfig = Layer.effect(LlmSettings, fromConfig)
}
