import type { CallContext, RetrievalError, RoleError } from "@deepnote-rag/core"
import type { Effect, Schema } from "effect"

/**
 * How the recipe makes each call of a question (a role's sample, a judge's verdict, a retrieval): a run routes every
 * one through its journal, so a resumed question replays what finished and sends only the rest. Calls are issued in
 * a fixed order per question (the journal keys them by position); `request` is what the call's hash covers (its
 * inputs and the sample's slot; `context` only by step and language).
 */
export interface AlignCalls {
  readonly call: <A, I, R extends { readonly context: CallContext }>(
    kind: string,
    request: R,
    schema: Schema.Schema<A, I>,
    execute: Effect.Effect<A, RoleError | RetrievalError>
  ) => Effect.Effect<A, RoleError | RetrievalError>
}

/** Every call executed as it comes (tests, one-off use): nothing is journaled. */
export const directCalls: AlignCalls = { call: (_kind, _request, _schema, execute) => execute }
