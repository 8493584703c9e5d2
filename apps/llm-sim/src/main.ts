#!/usr/bin/env node
import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Either, Option } from "effect"
import { flags } from "./Cli/Flags.js"
import { decodeSimOptions, parseFaults, parseModels, parseRoleMeans } from "./Cli/SimInput.js"
import { start } from "./LlmSim.js"
import { servedModels } from "./SimOptions.js"

const command = Command.make("deepnote-llm-sim", flags, (o) =>
  Effect.gen(function*() {
    const faults = parseFaults(o.faults)
    if (Either.isLeft(faults)) return yield* Effect.fail(faults.left)
    const reasoningMeanTokensByRole = parseRoleMeans(o.reasoningMeanTokensByRole)
    if (Either.isLeft(reasoningMeanTokensByRole)) return yield* Effect.fail(reasoningMeanTokensByRole.left)
    const model = parseModels(o.model)
    const options = decodeSimOptions({
      port: o.port,
      ...(model === undefined ? {} : { model }),
      maxModelLen: o.maxModelLen,
      maxNumSeqs: o.maxNumSeqs,
      maxBatchedTokens: o.maxBatchedTokens,
      kvCapacityTokens: o.kvCapacityTokens,
      schedulingPolicy: o.schedulingPolicy,
      stepBaseMs: o.stepBaseMs,
      tokensPerStep: o.tokensPerStep,
      stepPerSeqMs: o.stepPerSeqMs,
      stepPerPrefillTokenMs: o.stepPerPrefillTokenMs,
      faultRate: o.faultRate,
      faultSeed: o.faultSeed,
      faults: faults.right,
      retryAfterSeconds: o.retryAfter,
      ...(o.shedAtWaiting !== 0 ? { shedAtWaiting: o.shedAtWaiting } : {}),
      reasoningMeanTokens: o.reasoningMeanTokens,
      reasoningMeanTokensByRole: reasoningMeanTokensByRole.right,
      reasoningDraw: o.reasoningDraw,
      structuredOutputs: !o.noStructuredOutputs,
      prefixCaching: !o.noPrefixCaching,
      blockSize: o.blockSize,
      ...Option.match(o.apiKey, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
      content: o.content,
      defaultTemperature: o.defaultTemperature,
      backgroundLoad: o.backgroundLoad,
      backgroundPromptTokens: o.backgroundPromptTokens,
      backgroundOutputTokens: o.backgroundOutputTokens,
      backgroundPriority: o.backgroundPriority,
      embeddingDim: o.embeddingDim
    })
    if (Either.isLeft(options)) return yield* Effect.fail(options.left)
    const sim = yield* start(options.right)
    yield* Console.log(
      `deepnote-llm-sim listening on ${sim.url} (model ${
        servedModels(sim.options).join(", ")
      }, max_num_seqs ${sim.options.maxNumSeqs}, ${sim.options.schedulingPolicy})`
    )
    return yield* Effect.never
  }).pipe(Effect.scoped))

const cli = Command.run(command, { name: "deepnote-llm-sim", version: "0.1.0" })

// `process.exit` returns `never`, which the rule takes for a Promise
// @effect-diagnostics-next-line lazyPromiseInEffectSync:off
const exitWithUsageError = Effect.sync(() => {
  process.exit(2)
})

cli(process.argv).pipe(
  // A bad flag is one line on stderr and exit code 2: ours here, @effect/cli's already printed by it.
  Effect.catchIf(
    (e): e is string => typeof e === "string",
    (message) => Effect.zipRight(Console.error(message), exitWithUsageError)
  ),
  Effect.catchIf(ValidationError.isValidationError, () => exitWithUsageError),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
