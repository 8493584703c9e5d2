import type { ResolvedSampling } from "@deepnote-rag/core"
import { createHash } from "node:crypto"
import type { ChatMessage, StructuredOutput } from "./Domain/Chat.js"

/**
 * The content address of a call: sha256 over the model, the exact messages (or prompts), every sampling parameter,
 * the structured-output constraint and the sample index. Field order is fixed so equal calls hash equally.
 */
export const cacheKey = (input: {
  readonly kind: "chat" | "completions"
  readonly model: string
  readonly messages?: ReadonlyArray<ChatMessage> | undefined
  readonly prompts?: ReadonlyArray<string> | undefined
  readonly sampling: ResolvedSampling
  readonly structured?: StructuredOutput | undefined
  readonly sampleIndex?: number | undefined
}): string =>
  createHash("sha256").update(JSON.stringify([
    input.kind,
    input.model,
    input.messages?.map((m) => [m.role, m.content]) ?? null,
    input.prompts ?? null,
    input.sampling.temperature,
    input.sampling.topP,
    input.sampling.maxTokens,
    input.sampling.seed,
    input.structured ?? null,
    input.sampleIndex ?? 0
  ])).digest("hex")
