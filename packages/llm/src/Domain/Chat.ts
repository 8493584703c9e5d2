import type { ResolvedSampling, Role } from "@deepnote-rag/core"

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** A constraint on the reply, enforced by the server when it can (vLLM structured outputs). */
export type StructuredOutput =
  | { readonly _tag: "Choice"; readonly choices: ReadonlyArray<string> }
  | { readonly _tag: "Json"; readonly name: string; readonly schema: Record<string, unknown> }

/** Who is calling: recorded in the ledger, sent as headers, used for sticky routing. */
export interface CallTags {
  readonly role: Role
  readonly questionId?: string | undefined
  readonly runId?: string | undefined
}

export interface ChatRequest extends CallTags {
  readonly messages: ReadonlyArray<ChatMessage>
  readonly sampling: ResolvedSampling
  readonly structured?: StructuredOutput | undefined
  /** Receive the reply as SSE (`stream: true` with `stream_options.include_usage`); the result is the same. */
  readonly stream?: boolean | undefined
  /** Distinguishes repeated samples of the same prompt in the cache key (default 0). */
  readonly sampleIndex?: number | undefined
}

export interface CompletionRequest extends CallTags {
  /** Several prompts in one `/v1/completions` request (chat template already applied). */
  readonly prompts: ReadonlyArray<string>
  readonly sampling: ResolvedSampling
  readonly sampleIndex?: number | undefined
}

export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  /** Prompt tokens the server served from its prefix cache, when it says. */
  readonly cachedPromptTokens?: number | undefined
}

/** How a structured-output constraint was carried out for this reply. */
export type StructuredStatus = "none" | "enforced" | "unsupported"

/** What every reply reports of its call: who answered, what it cost, how many attempts and how long it took. */
export interface CallResult {
  readonly model: string
  readonly endpoint: string
  readonly usage: Usage
  readonly attempts: number
  readonly latencyMs: number
  readonly cached: boolean
}

export interface ChatResult extends CallResult {
  readonly content: string
  readonly finishReason: string | undefined
  readonly structured: StructuredStatus
}

export interface CompletionResult extends CallResult {
  /** One text per prompt, in prompt order. */
  readonly texts: ReadonlyArray<string>
}

/** What `LlmClient.chatStream` emits: new text as it arrives, then the whole result (content joined, usage). */
export type ChatStreamEvent =
  | {
    readonly _tag: "Delta"
    /** New reply text (may be empty when only reasoning arrived). */
    readonly content: string
    /** New reasoning text (`reasoning_content`: a reasoning model's thinking, not part of the reply). */
    readonly reasoning: string
  }
  | { readonly _tag: "Done"; readonly result: ChatResult }
