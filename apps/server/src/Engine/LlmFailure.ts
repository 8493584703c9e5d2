import { BadGateway, InternalError, Unavailable, ValidationError } from "@deepnote-rag/api"
import type { PipelineError } from "@deepnote-rag/core"
import { LlmCallError, type LlmHealth } from "@deepnote-rag/llm"

/** `http://a (down: connection refused), http://b (overloaded)`. */
export const describeLlmEndpoints = (endpoints: LlmHealth["endpoints"]): string =>
  endpoints.map((e) => `${e.url} (${e.condition}${e.lastError === undefined ? "" : `: ${e.lastError}`})`).join(", ")

/** Seconds a client is told to wait before trying again when the LLM servers are unreachable. */
const llmRetryAfterSeconds = 10

/** Attempts that never got an answer from an LLM server: it is unreachable (503), not misbehaving (502). */
const unreachable: ReadonlySet<string> = new Set(["LlmTransportError", "LlmTimeoutError", "LlmUnavailable"])

/**
 * A question's failure as an HTTP error: an LLM call that failed because no server could be reached (outage past the
 * interactive tolerance, connection refused, timeouts) is 503 `llm_unavailable` with Retry-After; one a server
 * answered badly (an error status, an unusable reply) is 502 `llm_bad_gateway`; anything else is a 500.
 */
export const pipelineFailure = (error: PipelineError): BadGateway | Unavailable | InternalError => {
  if (error._tag === "RetrievalError") return InternalError.of(`retrieval failed: ${error.message}`, "retrieval_error")
  const call = error.cause
  if (!(call instanceof LlmCallError)) {
    // a role's reply that no reading can use has no cause; any other failure is ours
    return call === undefined
      ? BadGateway.of(`the LLM server's reply to the ${error.role} role could not be used: ${error.message}`)
      : InternalError.of(`${error.role} failed: ${error.message}`, "engine_error")
  }
  if (call.reason === "outage" || unreachable.has(call.last._tag)) {
    return Unavailable.of(
      `the LLM servers cannot be reached (${error.role} role): ${error.message}`,
      llmRetryAfterSeconds,
      "llm_unavailable"
    )
  }
  return BadGateway.of(`the LLM server answered badly (${error.role} role): ${error.message}`)
}

/**
 * The startup check of a run's models (`engineFacts`) as an HTTP error: a model no server serves is the request's fault
 * (400 on `config`), unreachable servers 503 with Retry-After, anything else a server's fault (502).
 */
export const modelCheckFailure = (call: LlmCallError): ValidationError | BadGateway | Unavailable =>
  call.last._tag === "LlmModelNotServed"
    ? ValidationError.of(call.message, "config")
    : call.reason === "outage" || unreachable.has(call.last._tag)
    ? Unavailable.of(`the LLM servers cannot be reached: ${call.message}`, llmRetryAfterSeconds, "llm_unavailable")
    : BadGateway.of(`the LLM servers could not list their models: ${call.message}`)
