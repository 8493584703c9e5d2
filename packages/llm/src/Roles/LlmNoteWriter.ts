import { Note, NoteWriter, type NoteWriterService } from "@deepnote-rag/core"
import { Effect, Either, Layer } from "effect"
import { LlmClient } from "../LlmClient.js"
import { initPrompt, updatePrompt } from "../Prompts/Prompts.js"
import { notesPrompt, parseNotesReply } from "../Prompts/RenactPrompts.js"
import { UsageLedger } from "../UsageLedger.js"
import { cleanReply } from "./Parse.js"
import { countParseFailure, readReply, roleChat, toPromptPassages } from "./RoleCall.js"

/** A written note: the reply cleaned; an empty one is unreadable. */
const readNote = (content: string): Either.Either<Note, string> => {
  const text = cleanReply(content)
  return text.length === 0 ? Either.left("the note writer returned an empty note") : Either.right(new Note({ text }))
}

/**
 * Note initialisation and knowledge accumulation through the LLM. An empty note is a malformed reply. Under the
 * `extract` update format (`renact`) the note is what one document adds (`YES#text`; `NO#…` is the empty note) and a
 * reply without the prefix is kept as it is (a parse failure).
 */
export const make: Effect.Effect<NoteWriterService, never, LlmClient | UsageLedger> = Effect.gen(function*() {
  const client = yield* LlmClient
  const ledger = yield* UsageLedger
  return {
    init: (input) =>
      Effect.gen(function*() {
        const { context } = input
        return yield* readReply(
          client,
          ledger,
          "init",
          context,
          initPrompt(context.language, input.question, toPromptPassages(input.passages), context.config.profile),
          undefined,
          readNote
        )
      }),
    update: (input) =>
      Effect.gen(function*() {
        const { context } = input
        if (context.formats.update === "extract") {
          const [document] = toPromptPassages(input.passages)
          const reply = yield* roleChat(
            client,
            "update",
            context,
            notesPrompt(context.language, input.question, input.bestNote.text, document ?? { title: "", text: "" })
          )
          const extracted = parseNotesReply(reply.content)
          if (extracted === undefined) yield* countParseFailure(ledger, "update")
          return new Note({ text: extracted ?? cleanReply(reply.content) })
        }
        return yield* readReply(
          client,
          ledger,
          "update",
          context,
          updatePrompt(
            context.language,
            input.question,
            input.bestNote.text,
            toPromptPassages(input.passages),
            context.config.profile
          ),
          undefined,
          readNote
        )
      })
  }
})

/** The `NoteWriter` over the `LlmClient` and `UsageLedger` in context, in the tag's spans (`NoteWriter.make`). */
export const layer: Layer.Layer<NoteWriter, never, LlmClient | UsageLedger> = Layer.effect(
  NoteWriter,
  Effect.map(make, NoteWriter.make)
)
