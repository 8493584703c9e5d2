import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect } from "effect"

/** A number flag whose bad value is refused in one line naming the flag (`--port: 'abc' is not an integer`). */
const numberFlag = (name: string, fallback: number, integer: boolean) =>
  Options.text(name).pipe(
    Options.withDefault(String(fallback)),
    Options.withPseudoName(integer ? "integer" : "number"),
    Options.mapEffect((text) => {
      const value = Number(text.trim())
      const ok = text.trim() !== "" && (integer ? Number.isSafeInteger(value) : Number.isFinite(value))
      return ok ? Effect.succeed(value) : Effect.fail(ValidationError.invalidValue(
        HelpDoc.p(`--${name}: '${text}' is not ${integer ? "an integer" : "a number"}`)
      ))
    })
  )
const int = (name: string, fallback: number) => numberFlag(name, fallback, true)
const num = (name: string, fallback: number) => numberFlag(name, fallback, false)
const text = (name: string, fallback: string) => Options.text(name).pipe(Options.withDefault(fallback))
/** A flag taking one of `choices`, refused in one line naming the flag. */
const choice = <const A extends string>(name: string, choices: readonly [A, ...Array<A>]) =>
  text(name, choices[0]).pipe(
    Options.withPseudoName(choices.join("|")),
    Options.mapEffect((value) => {
      const found = choices.find((c) => c === value)
      return found !== undefined ? Effect.succeed(found) : Effect.fail(ValidationError.invalidValue(
        HelpDoc.p(`--${name}: '${value}' is not one of ${choices.join(", ")}`)
      ))
    })
  )

/** Every flag of `deepnote-llm-sim`, with its default (the README's Flags section lists them). */
export const flags = {
  port: int("port", 8000).pipe(Options.withDescription("port on 127.0.0.1 (0 = any free port)")),
  model: Options.text("model").pipe(
    Options.repeated,
    Options.withDescription("model id served (default deepnote-sim); repeat it or give a comma list to serve several")
  ),
  maxModelLen: int("max-model-len", 32_768),
  maxNumSeqs: int("max-num-seqs", 64).pipe(Options.withDescription("sequences running at once")),
  maxBatchedTokens: int("max-batched-tokens", 8192).pipe(Options.withDescription("tokens per scheduler step")),
  kvCapacityTokens: int("kv-capacity-tokens", 262_144).pipe(
    Options.withDescription("KV cache size in tokens; running sequences are pre-empted when it is full")
  ),
  schedulingPolicy: choice("scheduling-policy", ["fcfs", "priority"]).pipe(
    Options.withDescription("fcfs, or priority (the request's integer priority, lower first)")
  ),
  stepBaseMs: num("step-base-ms", 4),
  tokensPerStep: int("tokens-per-step", 1).pipe(
    Options.withDescription("tokens per running sequence per step (>1 models speculative decoding)")
  ),
  stepPerSeqMs: num("step-per-seq-ms", 0.02),
  stepPerPrefillTokenMs: num("step-per-prefill-token-ms", 0.0005),
  faultRate: num("fault-rate", 0).pipe(Options.withDescription("share of generation requests with a fault (0-1)")),
  faultSeed: int("fault-seed", 1),
  faults: text("faults", "429,503").pipe(
    Options.withDescription("comma list of 429,503,529,stall,drop,malformed,garbage")
  ),
  shedAtWaiting: int("shed-at-waiting", 0).pipe(
    Options.withDescription(
      "refuse new requests with 429/503/529 (of --faults) while this many wait beyond the batch (0 = never)"
    )
  ),
  retryAfter: num("retry-after", 1).pipe(Options.withDescription("seconds in Retry-After on a 429 or 529")),
  reasoningMeanTokens: num("reasoning-mean-tokens", 0).pipe(
    Options.withDescription("mean length of a reasoning part before each chat reply (exponential; 0 = none)")
  ),
  reasoningMeanTokensByRole: text("reasoning-mean-tokens-by-role", "").pipe(
    Options.withDescription(
      "per-role means overriding --reasoning-mean-tokens, e.g. init=250,update=250,plan=30,judge=0,answer=10"
    )
  ),
  reasoningDraw: Options.choice("reasoning-draw", ["arrival", "prompt"]).pipe(
    Options.withDefault("arrival" as const),
    Options.withDescription(
      "reasoning lengths drawn in arrival order, or from a hash of each prompt (same call, same length)"
    )
  ),
  noPrefixCaching: Options.boolean("no-prefix-caching").pipe(
    Options.withDescription("turn automatic prefix caching off")
  ),
  blockSize: int("block-size", 16).pipe(Options.withDescription("tokens per KV block")),
  noStructuredOutputs: Options.boolean("no-structured-outputs").pipe(
    Options.withDescription("reject structured-output parameters with 400")
  ),
  apiKey: Options.text("api-key").pipe(Options.optional),
  content: choice("content", ["extractive", "lite"]).pipe(
    Options.withDescription("extractive (packages/extractive) or lite (cheap, for load tests)")
  ),
  defaultTemperature: num("default-temperature", 0).pipe(
    Options.withDescription("temperature of requests that send none (0 = exact replies)")
  ),
  backgroundLoad: int("background-load", 0).pipe(
    Options.withDescription("requests another client keeps in flight at all times")
  ),
  backgroundPromptTokens: int("background-prompt-tokens", 512),
  backgroundOutputTokens: int("background-output-tokens", 128),
  backgroundPriority: int("background-priority", 0),
  embeddingDim: int("embedding-dim", 384).pipe(Options.withDescription("dimensions of /v1/embeddings vectors"))
}
