import { Context, Effect, Layer } from "effect"
import type { CallContext } from "../Domain/CallContext.js"
import type { RoleError } from "../Domain/Errors.js"
import type { Note } from "../Domain/Note.js"
import type { Passage } from "../Domain/Passage.js"
import { annotateHotSpan, withHotSpan } from "../Observability/HotSpan.js"

export interface NoteInitInput {
  readonly question: string
  readonly passages: ReadonlyArray<Passage>
  readonly context: CallContext
}

export interface NoteUpdateInput {
  readonly question: string
  readonly bestNote: Note
  readonly passages: ReadonlyArray<Passage>
  readonly context: CallContext
}

export interface NoteWriterService {
  /** Writes the first note from the first passages (note initialisation). */
  readonly init: (input: NoteInitInput) => Effect.Effect<Note, RoleError>
  /** Rewrites the whole best note, adding what the new passages contribute (knowledge accumulation). */
  readonly update: (input: NoteUpdateInput) => Effect.Effect<Note, RoleError>
}

export class NoteWriter extends Context.Tag("@deepnote-rag/core/NoteWriter")<NoteWriter, NoteWriterService>() {
  /** Wraps an implementation so every call is a `NoteWriter.init` span (and `NoteWriter.update`) with the call's ids. */
  static readonly make = (impl: NoteWriterService): NoteWriterService => ({
    init: Effect.fnUntraced(function*(input: NoteInitInput) {
      yield* annotate(input.context, input.passages.length)
      return yield* impl.init(input)
    }, withHotSpan("NoteWriter.init")),
    update: Effect.fnUntraced(function*(input: NoteUpdateInput) {
      yield* annotate(input.context, input.passages.length)
      return yield* impl.update(input)
    }, withHotSpan("NoteWriter.update"))
  })

  /** A test double's layer: the implementation wrapped in the same spans as a real one. */
  static readonly layerTest = (impl: NoteWriterService) => Layer.succeed(NoteWriter, NoteWriter.make(impl))
}

const annotate = (context: CallContext, passages: number) =>
  annotateHotSpan({
    "deepnote.step": context.step,
    "deepnote.item.id": context.questionId,
    "deepnote.passages": passages
  })
