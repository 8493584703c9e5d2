import { Millis, NonNegative, PositiveInt, PositiveNumber } from "@deepnote-rag/core"
import { Schema } from "effect"

/** Interactive work (someone waits for the answer) or batch work (runs, sweeps, workers). */
export const WorkClass = Schema.Literal("interactive", "batch")
export type WorkClass = typeof WorkClass.Type

/** A well-formed http(s) URL (the WHATWG parser refuses a port above 65535) without spaces. */
const isHttpUrl = (url: string): boolean => {
  if (!/^https?:\/\/[^\s]+$/.test(url)) return false
  try {
    new URL(url)
    return true
  } catch {
    return false
  }
}

/** One server (or data-parallel rank). `maxNumSeqs` caps the calls in flight to it. */
export const EndpointSpec = Schema.Struct({
  url: Schema.String.pipe(
    Schema.filter(isHttpUrl, {
      message: (issue) =>
        `endpoint url must be http(s)://host[:port][/v1] with a port from 1 to 65535 (got ${
          JSON.stringify(issue.actual)
        })`
    })
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
  /** A static limit of calls in flight per endpoint (as `url#N` for one); absent: adaptive (or max_num_seqs + 1/8). */
  perEndpointConcurrency: Schema.optional(PositiveInt("perEndpointConcurrency")),
  /** Per-endpoint limits that follow the server's load (`/metrics`: queue, KV cache, pre-emptions; latency). */
  adaptiveConcurrency: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** How often each endpoint's `/metrics` is read for the adaptive limit. */
  metricsIntervalMs: Schema.optionalWith(PositiveNumber("metricsIntervalMs"), { default: () => 250 }),
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

/**
 * `http://h:8000/v1#32` → `{ url: "http://h:8000/v1", maxNumSeqs: 32 }`. A fragment that is not a positive integer is
 * kept (as NaN) so that decoding the settings refuses it, naming the field.
 */
export const parseEndpoint = (raw: string): { url: string; maxNumSeqs?: number } => {
  const trimmed = raw.trim()
  const hash = trimmed.indexOf("#")
  if (hash < 0) return { url: trimmed }
  const fragment = trimmed.slice(hash + 1)
  return { url: trimmed.slice(0, hash), maxNumSeqs: /^\d+$/.test(fragment) ? Number(fragment) : Number.NaN }
}

/** `http://h:8000/v1/` → `http://h:8000`: requests add `/v1/...` themselves. */
export const baseUrl = (url: string): string => url.replace(/\/+$/, "").replace(/\/v1$/, "")
