import type { LlmCapacity } from "@deepnote-rag/llm"
import { Option } from "effect"

/**
 * Questions in flight for the extractive engine when nothing says otherwise: it is CPU-bound on this process's one
 * event loop (no remote calls to overlap), so more questions in flight only queue; 16 keeps the progress steady.
 */
export const extractiveConcurrency = 16

/** The questions in flight a run uses and why, as printed at start and recorded in its manifest. */
export interface ChosenConcurrency {
  readonly value: number
  readonly reason: string
}

/**
 * `--concurrency` when given; else, for the LLM engine, the endpoints' capacity (`capacityOf`: configured limits, else
 * the `max_num_seqs` they report, plus headroom) so that the servers' batches are full; else the extractive default.
 */
export const chooseConcurrency = (
  flag: Option.Option<number>,
  capacity: LlmCapacity | undefined
): ChosenConcurrency =>
  Option.isSome(flag)
    ? { value: flag.value, reason: "--concurrency" }
    : capacity !== undefined
    ? { value: capacity.questions, reason: capacity.reason }
    : {
      value: extractiveConcurrency,
      reason: "extractive engine: CPU-bound on one event loop, more in flight only queue"
    }

/** The start-up line: `concurrency 72 (1 endpoint × max_num_seqs 64 from /v1/models, + 8 headroom)`. */
export const describeConcurrency = (chosen: ChosenConcurrency): string =>
  `concurrency ${chosen.value} (${chosen.reason})`
