#!/usr/bin/env node
import { Command, Options } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Option } from "effect"
import { start } from "./LlmSim.js"
import { FaultKind, parseRoleMeans } from "./SimOptions.js"

const int = (name: string, fallback: number) => Options.integer(name).pipe(Options.withDefault(fallback))
const num = (name: string, fallback: number) => Options.float(name).pipe(Options.withDefault(fallback))

const command = Command.make("deepnote-llm-sim", {
  port: int("port", 8000).pipe(Options.withDescription("port on 127.0.0.1 (0 = any free port)")),
  model: Options.text("model").pipe(Options.withDefault("deepnote-sim")),
  maxModelLen: int("max-model-len", 32_768),
  maxNumSeqs: int("max-num-seqs", 64).pipe(Options.withDescription("sequences running at once")),
  maxBatchedTokens: int("max-batched-tokens", 8192).pipe(Options.withDescription("tokens per scheduler step")),
  stepBaseMs: num("step-base-ms", 4),
  tokensPerStep: int("tokens-per-step", 1).pipe(
    Options.withDescription("tokens per running sequence per step (>1 models speculative decoding)")
  ),
  stepPerSeqMs: num("step-per-seq-ms", 0.02),
  stepPerPrefillTokenMs: num("step-per-prefill-token-ms", 0.0005),
  faultRate: num("fault-rate", 0).pipe(Options.withDescription("share of generation requests with a fault (0-1)")),
  faultSeed: int("fault-seed", 1),
  faults: Options.text("faults").pipe(
    Options.withDefault("429,503"),
    Options.withDescription("comma list of 429,503,stall,drop,malformed,garbage")
  ),
  retryAfter: num("retry-after", 1).pipe(Options.withDescription("seconds in Retry-After on a 429")),
  reasoningMeanTokens: num("reasoning-mean-tokens", 0).pipe(
    Options.withDescription("mean length of a reasoning part before each chat reply (exponential; 0 = none)")
  ),
  reasoningMeanTokensByRole: Options.text("reasoning-mean-tokens-by-role").pipe(
    Options.withDefault(""),
    Options.withDescription(
      "per-role means overriding --reasoning-mean-tokens, e.g. init=250,update=250,plan=30,judge=0,answer=10"
    )
  ),
  noPrefixCaching: Options.boolean("no-prefix-caching").pipe(
    Options.withDescription("turn automatic prefix caching off")
  ),
  blockSize: int("block-size", 16).pipe(Options.withDescription("tokens per KV block, the unit of prefix caching")),
  noStructuredOutputs: Options.boolean("no-structured-outputs").pipe(
    Options.withDescription("reject structured-output parameters with 400")
  ),
  apiKey: Options.text("api-key").pipe(Options.optional),
  content: Options.choice("content", ["extractive", "lite"]).pipe(Options.withDefault("extractive" as const))
}, (o) =>
  Effect.gen(function*() {
    const faults = o.faults.split(",").map((f) => f.trim()).filter((f) => f.length > 0)
    const invalid = faults.filter((f) => !FaultKind.literals.some((k) => k === f))
    if (invalid.length > 0) {
      return yield* Effect.fail(`unknown fault kind(s): ${invalid.join(", ")} (use ${FaultKind.literals.join(", ")})`)
    }
    const reasoningMeanTokensByRole = parseRoleMeans(o.reasoningMeanTokensByRole)
    if (reasoningMeanTokensByRole._tag === "Left") return yield* Effect.fail(reasoningMeanTokensByRole.left)
    const sim = yield* start({
      port: o.port,
      model: o.model,
      maxModelLen: o.maxModelLen,
      maxNumSeqs: o.maxNumSeqs,
      maxBatchedTokens: o.maxBatchedTokens,
      stepBaseMs: o.stepBaseMs,
      tokensPerStep: o.tokensPerStep,
      stepPerSeqMs: o.stepPerSeqMs,
      stepPerPrefillTokenMs: o.stepPerPrefillTokenMs,
      faultRate: o.faultRate,
      faultSeed: o.faultSeed,
      faults: faults.filter((f): f is FaultKind => FaultKind.literals.some((k) => k === f)),
      retryAfterSeconds: o.retryAfter,
      reasoningMeanTokens: o.reasoningMeanTokens,
      reasoningMeanTokensByRole: reasoningMeanTokensByRole.right,
      structuredOutputs: !o.noStructuredOutputs,
      prefixCaching: !o.noPrefixCaching,
      blockSize: o.blockSize,
      ...Option.match(o.apiKey, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
      content: o.content
    })
    yield* Console.log(
      `deepnote-llm-sim listening on ${sim.url} (model ${sim.options.model}, max_num_seqs ${sim.options.maxNumSeqs})`
    )
    return yield* Effect.never
  }).pipe(Effect.scoped))

const cli = Command.run(command, { name: "deepnote-llm-sim", version: "0.1.0" })

cli(process.argv).pipe(
  Effect.catchIf(
    (e): e is string => typeof e === "string",
    (message) => Effect.zipRight(Console.error(message), Effect.sync(() => process.exit(2)))
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
