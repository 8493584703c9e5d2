import { Context, Effect, Layer } from "effect"
import type { Answer } from "../Domain/Answer.js"
import type { CallContext } from "../Domain/CallContext.js"
import type { RoleError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import type { Passage } from "../Domain/Passage.js"
import { annotateHotSpan, withHotSpan } from "../Observability/HotSpan.js"

/** What the answerer may read: the best note (DeepNote), raw passages (vanilla) or nothing (no retrieval). */
export type AnswerEvidence =
  | { readonly _tag: "Note"; readonly note: Note }
  | { readonly _tag: "Passages"; readonly passages: ReadonlyArray<Passage> }
  | { readonly _tag: "None" }

export interface AnswerInput {
  readonly question: string
  readonly evidence: AnswerEvidence
  readonly context: CallContext
  /** When present, the answerer hands it the answer's text as it writes it (see `AnswerTokens`). */
  readonly tokens?: ((text: string) => Effect.Effect<void>) | undefined
}

export interface AnswererService {
  readonly answer: (input: AnswerInput) => Effect.Effect<Answer, RoleError>
}

/** Answers the question in the task's style from the evidence it is given, and only from that. */
export class Answerer extends Context.Tag("@deepnote-rag/core/Answerer")<Answerer, AnswererService>() {
  /** Wraps an implementation so every call is a `Answerer.answer` span with the call's ids. */
  static readonly make = (impl: AnswererService): AnswererService => ({
    answer: Effect.fnUntraced(function*(input: AnswerInput) {
      yield* annotateHotSpan({
        "deepnote.item.id": input.context.questionId,
        "deepnote.answer.evidence": input.evidence._tag,
        "deepnote.task": input.context.config.task
      })
      return yield* impl.answer(input)
    }, withHotSpan("Answerer.answer"))
  })

  /** A test double's layer: the implementation wrapped in the same spans as a real one. */
  static readonly layerTest = (impl: AnswererService) => Layer.succeed(Answerer, Answerer.make(impl))
}
