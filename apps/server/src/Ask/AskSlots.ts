import { capacityOf, maxQuestionsInFlight } from "@deepnote-rag/llm"
import { Effect, Option } from "effect"
import type { ServerEngineService } from "../Engine/ServerEngine.js"

/**
 * Answers at once for the extractive engine: it is CPU-bound on the process's one event loop, where more answers in
 * flight only queue (`benchmarks/server`: latency ≈ answers in flight × CPU per answer).
 */
export const extractiveAskSlots = 16

/** The answer slots of a server and why, as logged at start. */
export interface AskSlots {
  readonly value: number
  readonly reason: string
}

/**
 * `DEEPNOTE_SERVER_ASK_CONCURRENCY` when set; else for the LLM engine the endpoints' capacity (`capacityOf`: each
 * answer has one call in flight, so fewer slots than the servers' batches leave the GPUs idle); else 16.
 */
export const askSlots = (configured: number | undefined, engine: ServerEngineService): Effect.Effect<AskSlots> =>
  configured !== undefined
    ? Effect.succeed({ value: configured, reason: "DEEPNOTE_SERVER_ASK_CONCURRENCY" })
    : Option.match(engine.llmClient, {
      onNone: () =>
        Effect.succeed({
          value: extractiveAskSlots,
          reason: "extractive engine: CPU-bound on one event loop, more at once only queue"
        }),
      onSome: (client) =>
        Effect.map(client.endpoints, (endpoints) => {
          const capacity = capacityOf(endpoints, maxQuestionsInFlight)
          return { value: capacity.questions, reason: capacity.reason }
        })
    })
