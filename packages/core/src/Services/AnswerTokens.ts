import { Context, type Effect, Layer } from "effect"

export interface AnswerTokensService {
  /** Receives the next piece of the answer's text, as the answerer writes it. */
  readonly publish: (text: string) => Effect.Effect<void>
}

/**
 * Where the answer's text goes as it is written (token streaming to a client). Optional: without it, answers arrive
 * whole. The answer stage hands the sink to the answerer as `AnswerInput.tokens`, so an implementation streams only
 * when its input carries one.
 */
export class AnswerTokens extends Context.Tag("@deepnote-rag/core/AnswerTokens")<AnswerTokens, AnswerTokensService>() {
  static readonly layer = (publish: (text: string) => Effect.Effect<void>) =>
    Layer.succeed(AnswerTokens, AnswerTokens.of({ publish }))
}
