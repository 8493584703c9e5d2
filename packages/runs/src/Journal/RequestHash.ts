import type { CallContext } from "@deepnote-rag/core"
import { stableHash } from "@deepnote-rag/core"

/**
 * The request hash of a journaled call: the call kind, its inputs (passages by id and text, notes by text, queries,
 * sets as sorted arrays) and the parts of the context that shape the response (step, language, the config hash).
 * The run id and the question id are left out: the journal key already holds them.
 */
export const requestHash = (kind: string, input: object, context: CallContext, configHash: string): string =>
  stableHash({
    kind,
    input: normalise(input),
    step: context.step,
    language: context.language,
    config: configHash
  })

const normalise = (value: unknown): unknown => {
  if (value instanceof Set) return [...value].map(String).sort()
  if (Array.isArray(value)) return value.map(normalise)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "context")
        .map(([key, v]) => [key, normalise(v)])
    )
  }
  return value
}
