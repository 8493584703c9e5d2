import { Context, Effect, Layer } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { RoleError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import type { Verdict } from "../Domain/Verdict.js"
import { annotateHotSpan, withHotSpan } from "../Observability/HotSpan.js"

export interface CompareInput {
  readonly question: string
  readonly bestNote: Note
  readonly candidate: Note
  readonly context: CallContext
}

export interface JudgeService {
  readonly compare: (input: CompareInput) => Effect.Effect<Verdict, RoleError>
}

/** Decides whether a candidate note is significantly better than the best note (adaptive retrieval decision). */
export class Judge extends Context.Tag("@deepnote-rag/core/Judge")<Judge, JudgeService>() {
  /** Wraps an implementation so every call is a `Judge.compare` span with the call's ids. */
  static readonly make = (impl: JudgeService): JudgeService => ({
    compare: Effect.fnUntraced(function*(input: CompareInput) {
      yield* annotateHotSpan({
        "deepnote.step": input.context.step,
        "deepnote.item.id": input.context.questionId
      })
      const verdict = yield* impl.compare(input)
      yield* annotateHotSpan({ "deepnote.verdict": verdict.better ? "better" : "not-better" })
      return verdict
    }, withHotSpan("Judge.compare"))
  })

  /** A test double's layer: the implementation wrapped in the same spans as a real one. */
  static readonly layerTest = (impl: JudgeService) => Layer.succeed(Judge, Judge.make(impl))
}
