import type { RoleUsage, Usage } from "@deepnote-rag/api"
import { type CallUsage, sumCallUsage } from "@deepnote-rag/llm"

/**
 * The question's usage as OpenAI reports it: the sum over every LLM call the pipeline made, as the LLM servers
 * reported it (cache hits and failed calls cost none, as in the run journal), with the prefix-cached prompt tokens.
 */
export const usageOf = (calls: ReadonlyArray<CallUsage>): Usage => {
  const sum = sumCallUsage(calls)
  return {
    prompt_tokens: sum.promptTokens,
    completion_tokens: sum.completionTokens,
    total_tokens: sum.promptTokens + sum.completionTokens,
    prompt_tokens_details: { cached_tokens: sum.cachedPromptTokens }
  }
}

/** The same usage by role (`deepnote.usageByRole`): calls made and the tokens of those the servers answered. */
export const usageByRole = (calls: ReadonlyArray<CallUsage>): Record<string, RoleUsage> => {
  const out: Record<string, RoleUsage> = {}
  for (const role of [...new Set(calls.map((c) => c.role))]) {
    const mine = calls.filter((c) => c.role === role)
    const sum = sumCallUsage(mine)
    out[role] = {
      calls: mine.length,
      prompt_tokens: sum.promptTokens,
      completion_tokens: sum.completionTokens,
      cached_tokens: sum.cachedPromptTokens
    }
  }
  return out
}
