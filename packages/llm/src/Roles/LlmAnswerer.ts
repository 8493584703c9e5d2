import { Answer, Answerer, type AnswererService } from "@deepnote/core"
import { Effect, Layer } from "effect"
import { LlmClient } from "../LlmClient.js"
import { answerPrompt, instructionsFor } from "../Prompts/Prompts.js"
import { UsageLedger } from "../UsageLedger.js"
import { cleanReply, parseShortAnswer, parseYesNo } from "./Parse.js"
import { roleChat, unreadable } from "./RoleCall.js"

/**
 * Answers through the LLM, in the task's style, from the note, the passages (vanilla) or nothing (no retrieval).
 * `paper` keeps the reply as produced (the reference evaluates the raw text); otherwise short answers lose labels and
 * quotes, and yes/no answers are constrained to the language's two words and normalised to "yes"/"no".
 */
export const make: Effect.Effect<AnswererService, never, LlmClient | UsageLedger> = Effect.gen(function*() {
  const client = yield* LlmClient
  const ledger = yield* UsageLedger
  return {
    answer: (input) =>
      Effect.gen(function*() {
        const { context } = input
        const task = context.config.task
        const paper = context.config.profile === "paper"
        const messages = answerPrompt(context.language, task, input.question, input.evidence)
        const structured = task === "yesno" && !paper
          ? { _tag: "Choice" as const, choices: [...instructionsFor(context.language).yesNo] }
          : undefined
        const reply = yield* roleChat(client, "answer", context, messages, structured)
        if (paper) return new Answer({ text: cleanReply(reply.content) })
        if (task === "yesno") {
          const yesNo = parseYesNo(reply.content)
          if (yesNo === undefined) {
            return yield* unreadable(ledger, "answer", "the answer is neither yes nor no", reply.content)
          }
          return new Answer({ text: yesNo })
        }
        const text = task === "longform" ? cleanReply(reply.content) : parseShortAnswer(reply.content)
        if (text.length === 0) {
          return yield* unreadable(ledger, "answer", "the answer is empty", reply.content)
        }
        return new Answer({ text })
      })
  }
})

/** The `Answerer` over the `LlmClient` and `UsageLedger` in context, in the tag's spans (`Answerer.make`). */
export const layer: Layer.Layer<Answerer, never, LlmClient | UsageLedger> = Layer.effect(
  Answerer,
  Effect.map(make, Answerer.make)
)
