import { Note, NoteWriter, type NoteWriterService } from "@deepnote-rag/core"
import { Effect, Layer } from "effect"
import { LlmClient } from "../LlmClient.js"
import { initPrompt, updatePrompt } from "../Prompts/Prompts.js"
import { notesPrompt, parseNotesReply } from "../Prompts/RenactPrompts.js"
import { UsageLedger } from "../UsageLedger.js"
import { cleanReply } from "./Parse.js"
import { countParseFailure, roleChat, toPromptPassages, unreadable } from "./RoleCall.js"

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
        const reply = yield* roleChat(
          client,
          "init",
          context,
          initPrompt(context.language, input.question, toPromptPassages(input.passages), context.config.profile)
        )
        const text = cleanReply(reply.content)
        if (text.length === 0) {
          return yield* unreadable(ledger, "init", "the note writer returned an empty note", reply.content)
        }
        return new Note({ text })
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
        const reply = yield* roleChat(
          client,
          "update",
          context,
          updatePrompt(
            context.language,
            input.question,
            input.bestNote.text,
            toPromptPassages(input.passages),
            context.config.profile
          )
        )
        const text = cleanReply(reply.content)
        if (text.length === 0) {
          return yield* unreadable(ledger, "update", "the note writer returned an empty note", reply.content)
        }
        return new Note({ text })
      })
  }
})

/** The `NoteWriter` over the `LlmClient` and `UsageLedger` in context, in the tag's spans (`NoteWriter.make`). */
export const layer: Layer.Layer<NoteWriter, never, LlmClient | UsageLedger> = Layer.effect(
  NoteWriter,
  Effect.map(make, NoteWriter.make)
)
