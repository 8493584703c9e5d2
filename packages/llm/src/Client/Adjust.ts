import { Effect } from "effect"
import type { LlmAttemptError } from "../Domain/LlmError.js"
import type { EndpointState } from "./Endpoint.js"
import type { Decision } from "./RetryDecision.js"
import { downgrade, isContextTooLong } from "./Structured.js"

const retryAtOnce = (why: string): Decision => ({
  _tag: "Retry",
  delayMs: 0,
  counted: false,
  throttled: false,
  avoid: undefined,
  why,
  adjusted: true
})

/**
 * A 400 that the client answers by changing the request for that endpoint, remembered, and retrying at once without
 * counting: a server that refuses `priority` (vLLM V0 under fcfs: "Priority scheduling is not enabled") gets none
 * from then on; one that refuses structured outputs gets the next style down (`auto`: `structured_outputs` →
 * `guided` → none). Undefined for any other failure.
 */
export const adjust = (
  error: LlmAttemptError,
  endpoint: EndpointState | undefined,
  structured: boolean,
  countFallback: () => Effect.Effect<void>
): Effect.Effect<Decision | undefined> =>
  Effect.gen(function*() {
    if (error._tag !== "LlmHttpError" || error.status !== 400 || endpoint === undefined) return undefined
    if (endpoint.sendPriority && /priority/i.test(error.message)) {
      endpoint.sendPriority = false
      yield* Effect.annotateCurrentSpan("deepnote.llm.retry.reason", "priority-rejected")
      yield* Effect.logWarning(`${endpoint.url} refused the priority field; sending none to it from now on`)
      return retryAtOnce("priority-rejected")
    }
    if (structured && !isContextTooLong(error.message)) {
      endpoint.structured = downgrade(endpoint.structured)
      yield* countFallback()
      yield* Effect.annotateCurrentSpan({
        "deepnote.llm.retry.reason": "structured-outputs-rejected",
        "deepnote.llm.structured.next": endpoint.structured
      })
      yield* Effect.logWarning(
        `${endpoint.url} rejected structured outputs; continuing with "${endpoint.structured}"`
      )
      return retryAtOnce("structured-outputs-rejected")
    }
    return undefined
  })
