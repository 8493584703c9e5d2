import { Either, Schema } from "effect"

/** A fault the simulator can inject into a generation request. */
export const FaultKind = Schema.Literal("429", "503", "stall", "drop", "malformed", "garbage")
export type FaultKind = typeof FaultKind.Type

const NonNegative = Schema.Number.pipe(Schema.nonNegative())

/** The roles the simulator tells apart (from the `x-deepnote-role` header, or inferred from the prompt). */
export const SimRole = Schema.Literal("init", "update", "plan", "judge", "answer")
export type SimRole = typeof SimRole.Type
const PositiveInt = Schema.Int.pipe(Schema.positive())

/** Everything the simulator can be told; every field has a default. */
export const SimOptions = Schema.Struct({
  /** 0 picks a free port. The simulator binds 127.0.0.1 only. */
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 65535)), { default: () => 0 }),
  model: Schema.optionalWith(Schema.String, { default: () => "deepnote-sim" }),
  maxModelLen: Schema.optionalWith(PositiveInt, { default: () => 32_768 }),
  /** Most sequences running at once (vLLM `--max-num-seqs`). */
  maxNumSeqs: Schema.optionalWith(PositiveInt, { default: () => 64 }),
  /** Tokens one step may process: one per decoding sequence plus prefill chunks (vLLM `--max-num-batched-tokens`). */
  maxBatchedTokens: Schema.optionalWith(PositiveInt, { default: () => 8192 }),
  /** KV capacity in tokens, for `vllm:kv_cache_usage_perc`. */
  kvCapacityTokens: Schema.optionalWith(PositiveInt, { default: () => 262_144 }),
  /**
   * Automatic prefix caching (on by default, as in vLLM V1): cached prompt blocks skip prefill, and replies report
   * `usage.prompt_tokens_details.cached_tokens`.
   */
  prefixCaching: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Tokens per KV block (vLLM `--block-size`), the unit of prefix caching. */
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
  /** Seconds sent in `Retry-After` with a 429. */
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
  /** `extractive` (packages/extractive) or `lite` (cheap, for load tests). */
  content: Schema.optionalWith(Schema.Literal("extractive", "lite"), { default: () => "extractive" as const })
})
export type SimOptions = typeof SimOptions.Type
export type SimOptionsInput = typeof SimOptions.Encoded

/** `init=250,update=250,judge=0` → per-role reasoning means, with an error that names the bad entry. */
export const parseRoleMeans = (text: string): Either.Either<Partial<Record<SimRole, number>>, string> => {
  const means: Partial<Record<SimRole, number>> = {}
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e.length > 0)) {
    const [role = "", value = ""] = entry.split("=").map((part) => part.trim())
    const tokens = Number(value)
    if (!Schema.is(SimRole)(role)) {
      return Either.left(
        `--reasoning-mean-tokens-by-role: unknown role "${role}" in "${entry}" (roles: ${SimRole.literals.join(", ")})`
      )
    }
    if (value === "" || !Number.isFinite(tokens) || tokens < 0) {
      return Either.left(`--reasoning-mean-tokens-by-role: "${entry}" needs a token count ≥ 0 (e.g. ${role}=250)`)
    }
    means[role] = tokens
  }
  return Either.right(means)
}
