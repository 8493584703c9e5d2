import { Schema } from "effect"

/** A fault the simulator can inject into a generation request. */
export const FaultKind = Schema.Literal("429", "503", "529", "stall", "drop", "malformed", "garbage")
export type FaultKind = typeof FaultKind.Type

/** vLLM's `--scheduling-policy`: arrival order, or the requests' `priority` field (lower first). */
export const SchedulingPolicyName = Schema.Literal("fcfs", "priority")
export type SchedulingPolicyName = typeof SchedulingPolicyName.Type

const NonNegative = Schema.Number.pipe(Schema.nonNegative())
const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative())

/** The roles the simulator tells apart (from the `x-deepnote-role` header, or inferred from the prompt). */
export const SimRole = Schema.Literal("init", "update", "plan", "judge", "answer")
export type SimRole = typeof SimRole.Type
const PositiveInt = Schema.Int.pipe(Schema.positive())
const ModelId = Schema.String.pipe(Schema.minLength(1))

/** Everything the simulator can be told; every field has a default. */
const SimOptionsFields = Schema.Struct({
  /** 0 picks a free port. The simulator binds 127.0.0.1 only. */
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 65535)), { default: () => 0 }),
  /**
   * The model id served, or several (one engine under several names, as vLLM's `--served-model-name a b` or LoRA
   * adapters share one server): `/v1/models` lists them all; the first labels the metrics.
   */
  model: Schema.optionalWith(Schema.Union(ModelId, Schema.NonEmptyArray(ModelId)), {
    default: () => "deepnote-sim"
  }),
  maxModelLen: Schema.optionalWith(PositiveInt, { default: () => 32_768 }),
  /** Most sequences running at once (vLLM `--max-num-seqs`). */
  maxNumSeqs: Schema.optionalWith(PositiveInt, { default: () => 64 }),
  /** Tokens one step may process: one per decoding sequence plus prefill chunks (vLLM `--max-num-batched-tokens`). */
  maxBatchedTokens: Schema.optionalWith(PositiveInt, { default: () => 8192 }),
  /**
   * KV-cache capacity in tokens (whole blocks of `blockSize` count). Running sequences hold blocks for their computed
   * tokens; when a step needs more than there are, a running sequence is pre-empted (recompute).
   */
  kvCapacityTokens: Schema.optionalWith(PositiveInt, { default: () => 262_144 }),
  /** `fcfs` (default) or `priority` (the request's `priority` field, lower first; pre-empts worse priorities). */
  schedulingPolicy: Schema.optionalWith(SchedulingPolicyName, { default: () => "fcfs" as const }),
  /**
   * Automatic prefix caching (on by default, as in vLLM V1): cached prompt blocks skip prefill, and replies report
   * `usage.prompt_tokens_details.cached_tokens`.
   */
  prefixCaching: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Tokens per KV block (vLLM `--block-size`), the unit of prefix caching and of KV accounting. */
  blockSize: Schema.optionalWith(PositiveInt, { default: () => 16 }),
  /** Tokens each decoding sequence produces per step (1 = plain decoding; more models speculative decoding). */
  tokensPerStep: Schema.optionalWith(PositiveInt, { default: () => 1 }),
  /** Step time = stepBaseMs + stepPerSeqMs × running + stepPerPrefillTokenMs × prefill tokens. */
  stepBaseMs: Schema.optionalWith(NonNegative, { default: () => 4 }),
  stepPerSeqMs: Schema.optionalWith(NonNegative, { default: () => 0.02 }),
  stepPerPrefillTokenMs: Schema.optionalWith(NonNegative, { default: () => 0.0005 }),
  /** Share of generation requests that get a fault (0–1), drawn from a PRNG seeded by `faultSeed`. */
  faultRate: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 1)), { default: () => 0 }),
  faultSeed: Schema.optionalWith(Schema.Int, { default: () => 1 }),
  faults: Schema.optionalWith(Schema.Array(FaultKind), { default: () => ["429", "503"] as const }),
  /**
   * Load shedding: while this many requests wait beyond the batch (`max_num_seqs`), new generation requests are refused
   * with an overload answer (429, 503 or 529 from `faults`), as a gateway or an overloaded server does.
   */
  shedAtWaiting: Schema.optional(PositiveInt),
  /** Seconds sent in `Retry-After` with a 429 or a 529. */
  retryAfterSeconds: Schema.optionalWith(NonNegative, { default: () => 1 }),
  /** When false, `structured_outputs`, `guided_*` and `response_format` are rejected with 400 (an old or foreign server). */
  structuredOutputs: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Reported in `/v1/models` as `max_num_seqs` (clients may size their concurrency from it). */
  advertiseMaxNumSeqs: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Bearer token required on /v1 requests, if set. */
  apiKey: Schema.optional(Schema.String),
  /**
   * Mean length of a reasoning part generated before each chat reply (0 = none), drawn per request from an
   * exponential distribution seeded by `faultSeed`. It goes to `reasoning_content` (as vLLM's reasoning parsers do),
   * costs generation steps and counts in usage: the length variance of a reasoning model, without changing replies.
   */
  reasoningMeanTokens: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { default: () => 0 }),
  /**
   * Per-role means that override `reasoningMeanTokens` (e.g. long for the note writer, none for the judge). Real
   * replies differ most by role: a DeepNote question's time goes to writing notes, while a verdict is one token.
   */
  reasoningMeanTokensByRole: Schema.optionalWith(Schema.partial(Schema.Record({ key: SimRole, value: NonNegative })), {
    default: () => ({})
  }),
  /**
   * How a reasoning part's length is drawn: `arrival` (the next number of the seeded PRNG, in the order requests
   * arrive) or `prompt` (from a hash of the seed and the prompt: the same call gets the same length whatever the
   * arrival order, so two ways of driving the same questions get the same draws).
   */
  reasoningDraw: Schema.optionalWith(Schema.Literal("arrival", "prompt"), { default: () => "arrival" as const }),
  /** `extractive` (packages/extractive) or `lite` (cheap, for load tests). */
  content: Schema.optionalWith(Schema.Literal("extractive", "lite"), { default: () => "extractive" as const }),
  /** The temperature of a request that sends none (vLLM reads it from the model's generation config); 0 = exact. */
  defaultTemperature: Schema.optionalWith(NonNegative, { default: () => 0 }),
  /** Requests "another client" keeps in flight at all times (each finished one is replaced at once). */
  backgroundLoad: Schema.optionalWith(NonNegativeInt, { default: () => 0 }),
  backgroundPromptTokens: Schema.optionalWith(PositiveInt, { default: () => 512 }),
  backgroundOutputTokens: Schema.optionalWith(PositiveInt, { default: () => 128 }),
  /** The background requests' `priority` (matters under the priority policy only). */
  backgroundPriority: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /** Dimensions of `/v1/embeddings` vectors (hashed bag of words; a request may ask for fewer). */
  embeddingDim: Schema.optionalWith(PositiveInt, { default: () => 384 })
})

/**
 * The options, checked as a whole the way vLLM checks its engine at start-up: the longest sequence must fit in the
 * KV cache (else a lone request could never run), and so must a background request.
 */
export const SimOptions = SimOptionsFields.pipe(
  Schema.filter((o) => {
    const kvTokens = Math.floor(o.kvCapacityTokens / o.blockSize) * o.blockSize
    if (o.maxModelLen > kvTokens) {
      return {
        path: ["maxModelLen"],
        message:
          `the model's max seq len (${o.maxModelLen}) is larger than the maximum number of tokens that can be stored in KV cache (${kvTokens}); raise kvCapacityTokens or lower maxModelLen`
      }
    }
    if (o.backgroundLoad > 0 && o.backgroundPromptTokens + o.backgroundOutputTokens > o.maxModelLen) {
      return {
        path: ["backgroundPromptTokens"],
        message:
          `a background request (${o.backgroundPromptTokens} + ${o.backgroundOutputTokens} tokens) exceeds maxModelLen (${o.maxModelLen})`
      }
    }
    return true
  })
)
export type SimOptions = typeof SimOptions.Type
export type SimOptionsInput = typeof SimOptions.Encoded

/** Every model id the server answers to, the first being the one metrics are labelled with. */
export const servedModels = (o: SimOptions): readonly [string, ...Array<string>] =>
  typeof o.model === "string" ? [o.model] : o.model
