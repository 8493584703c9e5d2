import { Judge, type JudgeService, Verdict } from "@deepnote-rag/core"
import { Effect, Either, Layer } from "effect"
import { LlmClient } from "../LlmClient.js"
import { decidePrompt } from "../Prompts/DeepRagPrompts.js"
import { judgePrompt } from "../Prompts/Prompts.js"
import { UsageLedger } from "../UsageLedger.js"
import { parseJudgePaper, parseJudgeWord } from "./Parse.js"
import { countParseFailure, readReply, roleChat } from "./RoleCall.js"

/**
 * The adaptive retrieval decision through the LLM.
 * - `json` format (`paper`): the reference's JSON contract and parsing rule (slice `{…}`, else `"true" in reply.lower()`).
 * - `retrieve` format (`deeprag`): the atomic decision on the candidate (a subquery) given the chain, True = search.
 * - `word` format: a structured choice of "True"/"False", read tolerantly; a reply that says neither is drawn again
 *   (`readReply`), and a RoleError when every draw says neither.
 * Readings other than the intended format count as parse failures.
 */
export const make: Effect.Effect<JudgeService, never, LlmClient | UsageLedger> = Effect.gen(function*() {
  const client = yield* LlmClient
  const ledger = yield* UsageLedger
  return {
    compare: (input) =>
      Effect.gen(function*() {
        const { context } = input
        const paper = context.formats.judge === "json"
        const messages = context.formats.judge === "retrieve"
          ? decidePrompt(context.language, input.candidate.text, input.bestNote.text)
          : judgePrompt(
            context.language,
            input.question,
            input.bestNote.text,
            input.candidate.text,
            paper ? "json" : "word",
            context.config.profile
          )
        if (paper) {
          const reply = yield* roleChat(client, "judge", context, messages)
          const verdict = parseJudgePaper(reply.content)
          if (verdict.parsed === "fallback") yield* countParseFailure(ledger, "judge")
          return new Verdict({ ...verdict, raw: reply.content })
        }
        const { raw, verdict } = yield* readReply(
          client,
          ledger,
          "judge",
          context,
          messages,
          { _tag: "Choice", choices: ["True", "False"] },
          (content) => {
            const verdict = parseJudgeWord(content)
            return verdict === undefined
              ? Either.left("the judge said neither True nor False")
              : Either.right({ raw: content, verdict })
          }
        )
        if (verdict.parsed === "fallback") yield* countParseFailure(ledger, "judge")
        return new Verdict({ ...verdict, raw })
      })
  }
})

/** The `Judge` over the `LlmClient` and `UsageLedger` in context; calls are `Judge.compare` spans (`Judge.make`). */
export const layer: Layer.Layer<Judge, never, LlmClient | UsageLedger> = Layer.effect(
  Judge,
  Effect.map(make, Judge.make)
)
