import type { ResolvedCallPolicy } from "../LlmCallPolicy.js"
import type { AttemptReply, AttemptRequest } from "./Attempt.js"
import type { EndpointState } from "./Endpoint.js"
import type { StreamDelta } from "./Sse.js"

/** Who is calling, for spans, sticky routing and messages: a role's `CallTags`, or `embed` for embeddings. */
export interface ExecutorTags {
  readonly role: string
  readonly questionId?: string | undefined
}

/** One logical call: how to build its HTTP request for a given endpoint, plus tags for spans and budgets. */
export interface Call<T extends ExecutorTags = ExecutorTags> {
  readonly tags: T
  readonly operation: "chat" | "text_completion" | "embeddings"
  readonly model: string
  readonly policy: ResolvedCallPolicy
  /** A streamed call's deltas, as they arrive (retries happen only before the first). */
  readonly onDelta?: ((delta: StreamDelta) => void) | undefined
  readonly build: (
    endpoint: EndpointState
  ) => { readonly request: Omit<AttemptRequest, "endpoint" | "timeoutMs">; readonly structured: boolean }
}

/** A call that succeeded: its reply, the endpoint that gave it, and how many attempts it took. */
export interface Executed {
  readonly reply: AttemptReply
  readonly endpoint: EndpointState
  readonly attempts: number
  readonly structuredSent: boolean
}
