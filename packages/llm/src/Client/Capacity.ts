import { counted } from "@deepnote-rag/core"
import type { EndpointStatus } from "./Endpoint.js"
import { fallbackConcurrency, withHeadroom } from "./EndpointPool.js"

/**
 * LLM calls one question has in flight at once: a question's steps (init, plan, judge, update, answer) call the model
 * one after the other, so N questions can never fill more than N of the servers' sequences.
 */
export const callsPerQuestion = 1

/** The most questions in flight a default may choose (the CLI's `--concurrency` bound). */
export const maxQuestionsInFlight = 4096

/** Where one endpoint's share of the capacity comes from. */
export type CapacitySource = "configured" | "reported" | "assumed"

/** The sequences the LLM endpoints can run at once, and the questions in flight that keep them busy. */
export interface LlmCapacity {
  /** Sequences over all endpoints: configured limits, else the `max_num_seqs` they report, else an assumed batch. */
  readonly sequences: number
  /** Questions in flight that fill them: sequences / calls per question, plus 1/8 headroom (at least 2). */
  readonly questions: number
  /** One line saying where the number comes from, e.g. `2 endpoints × max_num_seqs 32 from /v1/models`. */
  readonly reason: string
}

const sourceOf = (e: EndpointStatus): { readonly source: CapacitySource; readonly sequences: number } =>
  e.limitFixed
    ? { source: "configured", sequences: e.limit }
    : e.maxNumSeqs !== undefined
    ? { source: "reported", sequences: e.maxNumSeqs }
    : { source: "assumed", sequences: fallbackConcurrency }

const describe = (source: CapacitySource, count: number, sequences: ReadonlyArray<number>): string => {
  const same = sequences.every((n) => n === sequences[0])
  const amount = same ? `${counted(count, "endpoint")} × ` : `${count} endpoints, `
  const values = same ? String(sequences[0]) : sequences.join(" + ")
  switch (source) {
    case "configured":
      return `${amount}limit ${values} configured`
    case "reported":
      return `${amount}max_num_seqs ${values} from /v1/models`
    case "assumed":
      return `${amount}${values} assumed (none configured or reported)`
  }
}

/**
 * The questions in flight that keep the endpoints' batches full: the sum over endpoints of their configured limit
 * (`url#N`, `perEndpointConcurrency`), else the `max_num_seqs` they report, else the pool's assumed 64 (its adaptive
 * limit finds the real batch later), divided by the calls a question has in flight, plus the pool's headroom — a
 * question between two calls (retrieval, the store) would otherwise leave its slot empty. `benchmarks/concurrency`
 * measures the default against the former fixed 16 (at most `max`).
 */
export const capacityOf = (endpoints: ReadonlyArray<EndpointStatus>, max: number): LlmCapacity => {
  const shares = endpoints.map(sourceOf)
  const sequences = shares.reduce((sum, s) => sum + s.sequences, 0)
  const bySource = (["configured", "reported", "assumed"] as const).flatMap((source) => {
    const of = shares.filter((s) => s.source === source)
    return of.length === 0 ? [] : [describe(source, of.length, of.map((s) => s.sequences))]
  })
  const needed = Math.ceil(sequences / callsPerQuestion)
  const wanted = withHeadroom(needed)
  const questions = Math.max(1, Math.min(max, wanted))
  return {
    sequences,
    questions,
    reason: `${bySource.join("; ")}, + ${wanted - needed} headroom${wanted > max ? `, capped at ${max}` : ""}`
  }
}
