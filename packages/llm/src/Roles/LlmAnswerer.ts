import { Answer, Answerer, type AnswererService, type AnswerInput, RoleError, samplingFor } from "@deepnote-rag/core"
import { Effect, Either, Layer, Option, Stream } from "effect"
import type { ChatMessage, StructuredOutput } from "../Domain/Chat.js"
import { LlmClient, type LlmClientService } from "../LlmClient.js"
import { answerPrompt, instructionsFor } from "../Prompts/Prompts.js"
import { UsageLedger, type UsageLedgerService } from "../UsageLedger.js"
import { answerDeltas } from "./AnswerDeltas.js"
import { cleanReply, parseShortAnswer, parseYesNo } from "./Parse.js"
import { readReply, unreadable } from "./RoleCall.js"

/** The answer call of an input: its messages and, for yes/no questions, the constraint to the language's two words. */
const answerCall = (input: AnswerInput): { messages: Array<ChatMessage>; structured: StructuredOutput | undefined } => {
  const { context } = input
  const task = context.config.task
  const messages = answerPrompt(context.language, task, input.question, input.evidence, context.config.profile)
  const structured = task === "yesno" && context.formats.answer === "cleaned"
    ? { _tag: "Choice" as const, choices: [...instructionsFor(context.language).yesNo] }
    : undefined
  return { messages, structured }
}

/** The answer a reply gives, in the task's style, or what makes it unreadable. */
const answerOf = (input: AnswerInput) => (reply: string): Either.Either<Answer, string> => {
  const { config, formats } = input.context
  if (formats.answer === "raw") return Either.right(new Answer({ text: cleanReply(reply) }))
  if (config.task === "yesno") {
    const yesNo = parseYesNo(reply)
    return yesNo === undefined
      ? Either.left("the answer is neither yes nor no")
      : Either.right(new Answer({ text: yesNo }))
  }
  const text = config.task === "longform" ? cleanReply(reply) : parseShortAnswer(reply)
  return text.length === 0 ? Either.left("the answer is empty") : Either.right(new Answer({ text }))
}

/** The answer a streamed reply gives; one no reading can use is a RoleError (and a parse failure). */
const readAnswer = (
  ledger: UsageLedgerService,
  input: AnswerInput,
  reply: string
): Effect.Effect<Answer, RoleError> =>
  Either.match(answerOf(input)(reply), {
    onRight: Effect.succeed,
    onLeft: (what) => unreadable(ledger, "answer", what, reply)
  })

/** What `answerStream` emits: the reply's text as the model writes it, then the answer read from the whole reply. */
export type AnswerStreamEvent =
  | { readonly _tag: "Delta"; readonly text: string }
  | { readonly _tag: "Done"; readonly answer: Answer }

/**
 * The answer call streamed (for token streaming to HTTP clients): the raw reply's deltas as they arrive (reasoning
 * left out), then `Done` with the answer read as `answer` reads it (a short answer cleaned, yes/no normalised).
 * Retried like any call until its first delta; interrupting the stream closes the connection to the LLM server.
 */
const streamWith = (
  client: LlmClientService,
  ledger: UsageLedgerService,
  input: AnswerInput
): Stream.Stream<AnswerStreamEvent, RoleError> => {
  const { context } = input
  const { messages, structured } = answerCall(input)
  return client.chatStream({
    role: "answer",
    questionId: context.questionId,
    runId: context.runId,
    messages,
    sampling: samplingFor(context.config, "answer"),
    structured
  }).pipe(
    Stream.mapError((e) => new RoleError({ role: "answer", message: e.message, cause: e })),
    Stream.filter((event) => event._tag === "Done" || event.content.length > 0),
    Stream.mapEffect((event): Effect.Effect<AnswerStreamEvent, RoleError> =>
      event._tag === "Delta"
        ? Effect.succeed({ _tag: "Delta", text: event.content })
        : Effect.map(readAnswer(ledger, input, event.result.content), (answer) => ({ _tag: "Done", answer }))
    ),
    Stream.withSpan("Answerer.answerStream", {
      attributes: { "deepnote.item.id": context.questionId, "deepnote.task": context.config.task }
    })
  )
}

/** `answerStream` over the `LlmClient` and `UsageLedger` in context. */
export const answerStream = (
  input: AnswerInput
): Stream.Stream<AnswerStreamEvent, RoleError, LlmClient | UsageLedger> =>
  Stream.unwrap(
    Effect.map(Effect.all([LlmClient, UsageLedger]), ([client, ledger]) => streamWith(client, ledger, input))
  )

/** The streamed answer call, its deltas handed to `publish`; the answer read from the whole reply. */
const answerWithTokens = (
  client: LlmClientService,
  ledger: UsageLedgerService,
  input: AnswerInput,
  publish: (text: string) => Effect.Effect<void>
): Effect.Effect<Answer, RoleError> => {
  const pieces = answerDeltas(input.context.config.task, input.context.formats.answer)
  const send = (piece: string) => piece.length > 0 ? publish(piece) : Effect.void
  return streamWith(client, ledger, input).pipe(
    Stream.tap((event) => event._tag === "Delta" ? send(pieces.delta(event.text)) : Effect.void),
    Stream.runLast,
    Effect.flatMap((last) =>
      Option.isSome(last) && last.value._tag === "Done"
        ? Effect.as(send(pieces.end(last.value.answer.text)), last.value.answer)
        : Effect.dieMessage("the answer stream ended without its result")
    )
  )
}

/**
 * Answers through the LLM, in the task's style, from the note, the passages (vanilla) or nothing (no retrieval).
 * The `raw` answer format (`paper`) keeps the reply as produced (the reference evaluates the raw text); `cleaned`: short
 * answers lose labels and quotes, and yes/no answers are constrained to the language's two words and normalised to "yes"/"no".
 * With a token sink in its input (`AnswerInput.tokens`), the call is streamed and the answer's text goes to the sink as
 * it arrives, read as the whole reply is (`answerDeltas`: the pieces concatenated are the answer).
 */
export const make: Effect.Effect<AnswererService, never, LlmClient | UsageLedger> = Effect.gen(function*() {
  const client = yield* LlmClient
  const ledger = yield* UsageLedger
  return {
    answer: (input) =>
      input.tokens === undefined
        ? Effect.suspend(() => {
          const { messages, structured } = answerCall(input)
          return readReply(client, ledger, "answer", input.context, messages, structured, answerOf(input))
        })
        : answerWithTokens(client, ledger, input, input.tokens)
  }
})

/** The `Answerer` over the `LlmClient` and `UsageLedger` in context, in the tag's spans (`Answerer.make`). */
export const layer: Layer.Layer<Answerer, never, LlmClient | UsageLedger> = Layer.effect(
  Answerer,
  Effect.map(make, Answerer.make)
)
